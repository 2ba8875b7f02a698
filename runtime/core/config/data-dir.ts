/**
 * The data folder (`PORTCULLIS_DATA_DIR`): created owner-only when missing,
 * and checked to be a folder the gateway may write, so a bad path stops the
 * start with a line naming the variable, not a raw `mkdir` error.
 */
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { ConfigError } from './config.ts';

const VARIABLE = 'PORTCULLIS_DATA_DIR';
const TAKES = 'expected the path of a folder the gateway may write';

export function ensureDataDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ConfigError(VARIABLE, `${whyNot(dir, error)}; ${TAKES}`);
  }
  try {
    if (!statSync(dir).isDirectory()) throw Object.assign(new Error(), { code: 'ENOTDIR' });
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw new ConfigError(VARIABLE, `${whyNot(dir, error)}; ${TAKES}`);
  }
}

function whyNot(dir: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'EEXIST':
    case 'ENOTDIR':
      return `${JSON.stringify(dir)} is (or is inside) a file, not a folder`;
    case 'EACCES':
    case 'EPERM':
      return `${JSON.stringify(dir)} cannot be created or written: permission denied`;
    case 'EROFS':
      return `${JSON.stringify(dir)} is on a read-only file system`;
    default:
      return `${JSON.stringify(dir)} cannot be used (${code ?? 'unknown error'})`;
  }
}
