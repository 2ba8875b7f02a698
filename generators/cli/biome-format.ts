/**
 * Generated TypeScript, formatted by the repository's own Biome (the pinned
 * binary and `biome.json`), so `generated/` reads like the code around it and a
 * pin upgrade's `git diff` shows one changed action as a few changed lines.
 * Biome is deterministic for a given version and configuration.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export type FormatCode = (path: string, text: string) => Promise<string>;

/** A formatter for files under `<root>/generated/`; `path` is relative to `generated/`. */
export function biomeFormatter(root: string): FormatCode {
  const biome = createRequire(join(root, 'package.json')).resolve('@biomejs/biome/bin/biome');
  return (path, text) =>
    new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        // Formatting text from stdin needs no VCS: the same result in a checkout or a scratch copy.
        [biome, 'format', '--vcs-enabled=false', `--stdin-file-path=${join('generated', path)}`],
        { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] },
      );
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.on('error', reject);
      // Biome may exit before it reads everything (a configuration error): its exit code says why.
      child.stdin.on('error', () => {});
      child.on('close', (code) => {
        if (code === 0) return resolve(Buffer.concat(out).toString('utf8'));
        reject(
          new Error(
            `biome could not format generated/${path} (exit ${code}): ${Buffer.concat(err).toString('utf8')}`,
          ),
        );
      });
      child.stdin.end(text);
    });
}
