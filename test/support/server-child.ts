/**
 * The server entry (`runtime/main.ts`) kept running in a child process, for
 * tests that configure it by its environment (the `OTEL_*` variables): it
 * starts on loopback and any free port with a data folder of its own, and
 * is ready once its banner prints the admin token. `stop` sends SIGTERM and
 * waits for the exit (the server flushes its spans and audit on the way).
 * `run-server.ts` is for a start that is judged and stopped at once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './fixtures.ts';

export interface ServerChild {
  url: string;
  adminToken: string;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

const READY_MS = 120_000;

export async function startServerChild(env: Record<string, string>): Promise<ServerChild> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(PORTCULLIS_|OTEL_|DATABASE_URL$|REDIS_URL$|HOST$|PORT$)/.test(name),
    ),
  );
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'runtime', 'main.ts')],
    {
      cwd: ROOT,
      env: {
        ...inherited,
        HOST: '127.0.0.1',
        PORT: '0',
        PORTCULLIS_LOG_LEVEL: 'silent',
        PORTCULLIS_DATA_DIR: mkdtempSync(join(tmpdir(), 'portcullis-child-')),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const banner = await new Promise<{ url: string; adminToken: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start: ${stderr}`));
    }, READY_MS);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const url = / listening on (http:\/\/\S+) /.exec(stdout)?.[1];
      const adminToken = /admin token \(shown once; keep it\): (\S+)/.exec(stdout)?.[1];
      if (url && adminToken) {
        clearTimeout(timer);
        resolve({ url, adminToken });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before it started: ${stderr}`));
    });
  });
  return {
    ...banner,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
