/** Runs the compiler's CLI from source in a child process, offline, against the spec mirror. */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPortcullis as runCommand } from '../../runtime/adapters/cli/run.ts';
import { MIRROR, ROOT } from './fixtures.ts';

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** `repo` is the repository whose generators/cli.ts runs (a scratch copy for commands that write). */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  repo = ROOT,
): Promise<CliOutcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(repo, 'generators', 'cli.ts'), ...args],
      {
        cwd: repo,
        env: {
          ...process.env,
          PORTCULLIS_SPEC_MIRROR: MIRROR,
          PORTCULLIS_SPEC_CACHE: mkdtempSync(join(tmpdir(), 'portcullis-cache-')),
          PORTCULLIS_SPEC_DOWNLOAD: '0',
          ...env,
        },
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs the `portcullis` command from source in a child process, on the store `env` names. */
export function runPortcullis(
  args: string[],
  env: Record<string, string>,
  cwd = ROOT,
): Promise<CliOutcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'runtime', 'cli.ts'), ...args],
      { cwd, env: { ...process.env, NO_COLOR: '1', ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * Runs the `portcullis` command in this process (no child, no TypeScript
 * loader to start): what it prints on stdout and stderr, and its exit code.
 */
export async function runPortcullisHere(
  args: string[],
  env: Record<string, string>,
  places: { cwd?: string; checkout?: string } = {},
): Promise<CliOutcome> {
  let stdout = '';
  let stderr = '';
  const code = await runCommand(args, {
    env,
    output: (json) => ({
      json,
      colour: false,
      write: (text) => {
        stdout += text;
      },
      error: (text) => {
        stderr += text;
      },
    }),
    catalogs: new URL(`file://${join(ROOT, 'generated')}/`),
    cwd: places.cwd ?? ROOT,
    checkout: places.checkout ?? ROOT,
  });
  return { code, stdout, stderr };
}
