/**
 * The data folder (`PORTCULLIS_DATA_DIR`). Checked without touching anything
 * (`dataDirProblem`: an existing folder the gateway may write, or a path whose
 * nearest existing folder it may write in), then created owner-only one level
 * at a time (`ensureDataDir`), never with a recursive `mkdir`, which loops for
 * ever under `/proc`. A folder it cannot create stops the start with a line
 * naming the variable, and the levels it did create are removed again.
 */
import { accessSync, constants, mkdirSync, rmdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from './config-error.ts';

const VARIABLE = 'PORTCULLIS_DATA_DIR';
const TAKES = 'expected the path of a folder the gateway may write';

/** What is wrong with the path as the data folder, or undefined; reads only. */
export function dataDirProblem(dir: string): string | undefined {
  const plan = planOf(dir);
  return 'problem' in plan ? plan.problem : undefined;
}

/** Makes the data folder if it is missing; a `ConfigError` naming the variable if it cannot. */
export function ensureDataDir(dir: string): void {
  const plan = planOf(dir);
  if ('problem' in plan) throw new ConfigError(VARIABLE, plan.problem);
  const made: string[] = [];
  try {
    for (const folder of plan.missing) {
      try {
        mkdirSync(folder, { mode: 0o700 });
        made.push(folder);
      } catch (error) {
        // Made meanwhile by another process starting on the same folder: as good.
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    usable(resolve(dir));
  } catch (error) {
    for (const folder of made.reverse()) rmdirSync(folder);
    throw new ConfigError(VARIABLE, `${whyNot(dir, error)}; ${TAKES}`);
  }
}

/** The folders to make, outermost first, below the nearest one that exists; or what is wrong. */
function planOf(dir: string): { missing: string[] } | { problem: string } {
  const missing: string[] = [];
  let path = resolve(dir);
  for (;;) {
    try {
      usable(path);
      return { missing };
    } catch (error) {
      const parent = dirname(path);
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === path) {
        return { problem: `${whyNot(dir, error)}; ${TAKES}` };
      }
      missing.unshift(path);
      path = parent;
    }
  }
}

/** Throws unless the path is a folder this process may write in. */
function usable(path: string): void {
  if (!statSync(path).isDirectory()) throw Object.assign(new Error(), { code: 'ENOTDIR' });
  accessSync(path, constants.W_OK | constants.X_OK);
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
    case 'ENOENT':
      return `${JSON.stringify(dir)} cannot be created: the folder it would go in takes no new folders`;
    default:
      return `${JSON.stringify(dir)} cannot be used (${code ?? 'unknown error'})`;
  }
}
