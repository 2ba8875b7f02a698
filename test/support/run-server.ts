/**
 * Runs the server entry (`runtime/main.ts`, what `npm start` runs once built)
 * from source in a child process, on loopback and any free port. A start
 * that does not settle in time is killed and reported as such, so a server
 * spinning at start fails the test rather than hanging it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
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
  const child = spawnServer(env);
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

/** The server entry (from source by default) in a child, over a clean environment (no PORTCULLIS_* of the caller's). */
function spawnServer(
  env: Record<string, string>,
  entry: readonly string[] = ['--import', 'tsx', join(ROOT, 'runtime', 'main.ts')],
  cwd = ROOT,
) {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(PORTCULLIS_|DATABASE_URL$|REDIS_URL$|HOST$|PORT$)/.test(name),
    ),
  );
  return spawn(process.execPath, [...entry], {
    cwd,
    env: { ...inherited, HOST: '127.0.0.1', PORT: '0', PORTCULLIS_LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A server process that keeps running until the test stops or kills it. */
export interface ServerProcess {
  /** `http://127.0.0.1:<port>`, from its banner. */
  url: string;
  /** The first start's admin token, when this start printed one. */
  adminToken: string | undefined;
  child: ChildProcess;
  /** Its data folder (`PORTCULLIS_DATA_DIR`), where its audit journal is. */
  dataDir: string | undefined;
  /** What it wrote so far. */
  output(): { stdout: string; stderr: string };
  /** Resolves with its exit code (or signal) once it has exited. */
  exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL if it has not exited in 10 s; resolves once it has. */
  stop(): Promise<void>;
}

export interface RunServerOptions {
  /** Whether it has started, from its stdout so far; default: once it names its store. */
  started?: (stdout: string) => boolean;
  /** Node's arguments; default the entry from source (`--import tsx runtime/main.ts`). */
  entry?: readonly string[];
  /** Its working folder; default the repository. */
  cwd?: string;
}

/**
 * Starts the server with `env` and answers once `started` says so from its
 * stdout and `/readyz` answers 200; a first start waits for its admin token
 * with `started`. A start that fails or does not settle in time rejects with
 * what it wrote.
 */
export function runServer(
  env: Record<string, string>,
  options: RunServerOptions = {},
): Promise<ServerProcess> {
  const started = options.started ?? ((stdout: string) => /\nstore: [^\n]*\n/.test(stdout));
  const child = spawnServer(env, options.entry, options.cwd);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once('close', (code, signal) => resolve(code ?? signal ?? 1)),
  );
  const output = () => ({ stdout, stderr });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(kill);
    }
  };
  const ready = async (): Promise<ServerProcess> => {
    const deadline = Date.now() + SETTLE_MS;
    let url: string | undefined;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) break;
      url ??= / listening on (http:\/\/\S+) /.exec(stdout)?.[1];
      if (url !== undefined && started(stdout)) {
        const reply = await fetch(`${url}/readyz`).catch(() => undefined);
        if (reply?.status === 200) {
          await reply.body?.cancel();
          const adminToken = /admin token \(shown once; keep it\): (\S+)\n/.exec(stdout)?.[1];
          return { url, adminToken, child, dataDir: env.PORTCULLIS_DATA_DIR, output, exited, stop };
        }
        await reply?.body?.cancel();
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGKILL');
    throw new Error(`the server did not start\n${stdout}\n${stderr}`);
  };
  return ready();
}
