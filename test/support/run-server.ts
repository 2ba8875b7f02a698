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

/** A server process a test drives: signals it, and waits for it to exit. */
export interface ServerProcess {
  /** `http://127.0.0.1:<port>`, from its banner. */
  url: string;
  /** Its stdout so far. */
  stdout(): string;
  stderr(): string;
  signal(signal: NodeJS.Signals): void;
  /** Its exit code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts the server entry like `startServerProcess` and hands it over once
 * `started` says so from its stdout (its handlers are set by then: they are
 * set as the banner is printed). A start that does not settle is killed.
 */
export function runServerProcess(
  env: Record<string, string>,
  started: (stdout: string) => boolean,
): Promise<ServerProcess> {
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
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start: ${stderr}`));
    }, SETTLE_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const url = / listening on (http:\/\/\S+) /.exec(stdout)?.[1];
      if (url === undefined || !started(stdout)) return;
      clearTimeout(timer);
      resolve({
        url,
        stdout: () => stdout,
        stderr: () => stderr,
        signal: (signal) => child.kill(signal),
        exited,
      });
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before it started: ${stderr}`));
    });
  });
}
