/**
 * Runs the server entry (`runtime/main.ts`, what `npm start` runs once built)
 * from source in a child process, on loopback and any free port. A start
 * that does not settle in time is killed and reported as such, so a server
 * spinning at start fails the test rather than hanging it.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './fixtures.ts';

export interface ServerStart {
  /** The exit code; `running` when it started (and was stopped); `timed out` when it never settled. */
  outcome: number | 'running' | 'timed out';
  stdout: string;
  stderr: string;
}

/** Well above a start on a busy machine; a spinning start is killed at this point. */
const SETTLE_MS = 120_000;

/**
 * Starts the server with `env` (over a clean environment: no PORTCULLIS_*
 * of the caller's); answers when it exits, or when it has started (then stops it).
 * `started` says from its stdout so far that it has; by default, once the
 * banner's first line shows. A test that reads a later line of the banner
 * waits for that line: a SIGTERM before the server sets its handlers ends it at once.
 */
export function startServerProcess(
  env: Record<string, string>,
  started: (stdout: string) => boolean = (stdout) => stdout.includes(' listening on '),
): Promise<ServerStart> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(PORTCULLIS_|DATABASE_URL$|REDIS_URL$|HOST$|PORT$)/.test(name),
    ),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'runtime', 'main.ts')], {
    cwd: ROOT,
    env: { ...inherited, HOST: '127.0.0.1', PORT: '0', PORTCULLIS_LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  return new Promise((resolve) => {
    let outcome: ServerStart['outcome'] | undefined;
    const timer = setTimeout(() => stop('timed out'), SETTLE_MS);
    const stop = (why: 'running' | 'timed out') => {
      if (outcome !== undefined) return;
      outcome = why;
      child.kill(why === 'running' ? 'SIGTERM' : 'SIGKILL');
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (started(stdout)) stop('running');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    // 'close', not 'exit': the banner's later lines may still be in the pipe when the child exits.
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ outcome: outcome ?? code ?? 1, stdout, stderr });
    });
  });
}
