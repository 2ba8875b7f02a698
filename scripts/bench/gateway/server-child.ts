/**
 * Every server of the benchmark runs in a child process of its own, so its CPU
 * is not the load generator's and its resident memory can be read. The parent
 * learns the child is up either from the child's first stdout line
 * (`{"url": ..., ...}`: our own servers, and whatever else they hand back,
 * such as a key) or by polling a URL until it answers
 * (third-party servers). Output goes to .cache/bench-gateway/logs/<name>.log.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { LOGS, ROOT } from './paths.ts';

export type Readiness = { kind: 'announce' } | { kind: 'poll'; url: string };

export interface ServerChildOptions {
  /** Names the log file. */
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: Record<string, string>;
  ready: Readiness;
  /** Default 30 s. */
  timeoutMs?: number;
}

export interface ServerChild {
  pid: number;
  /** The announced URL; undefined for a polled child (the caller knows its URL). */
  url: string | undefined;
  /** The whole first line of an announcing child: its URL and anything else it told. */
  announced: Record<string, unknown> | undefined;
  logFile: string;
  close(): Promise<void>;
}

export async function startServerChild(options: ServerChildOptions): Promise<ServerChild> {
  mkdirSync(LOGS, { recursive: true });
  const logFile = join(LOGS, `${options.name}.log`);
  const log = openSync(logFile, 'w');
  // BENCH_GATEWAY_CPU_PROF: a CPU profile of each Node child, written when it stops.
  const profile = process.env.BENCH_GATEWAY_CPU_PROF;
  const args =
    profile && options.command === process.execPath
      ? ['--cpu-prof', `--cpu-prof-dir=${profile}`, ...options.args]
      : options.args;
  const child = spawn(options.command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', options.ready.kind === 'announce' ? 'pipe' : log, log],
  });
  closeSync(log);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const close = () => stopChild(child, exited);
  try {
    const announced = await withTimeout(
      Promise.race([
        options.ready.kind === 'announce' ? announcement(child) : pollUntilUp(options.ready.url),
        exited.then((code) => {
          throw new Error(`exited with ${code} before it was up`);
        }),
      ]),
      options.timeoutMs ?? 30_000,
    );
    if (child.pid === undefined) throw new Error('no pid');
    const url = announced?.url as string | undefined;
    return { pid: child.pid, url, announced, logFile, close };
  } catch (error) {
    await close();
    const tail = (await readFile(logFile, 'utf8')).trim().split('\n').slice(-3).join(' | ');
    throw new Error(`${options.name}: ${(error as Error).message}${tail ? ` (log: ${tail})` : ''}`);
  }
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

function announcement(child: ChildProcess): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    let answered = false;
    child.stdout!.setEncoding('utf8');
    // Kept flowing after the first line, so a chatty child never blocks on a full pipe.
    child.stdout!.on('data', (chunk: string) => {
      if (answered) return;
      buffered += chunk;
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      answered = true;
      try {
        const line = JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>;
        if (typeof line.url !== 'string') throw new Error('no url');
        resolve(line);
      } catch {
        // Not echoed: the line may carry a key.
        reject(new Error('the first stdout line is not {"url": ...}'));
      }
    });
  });
}

async function pollUntilUp(url: string): Promise<undefined> {
  for (;;) {
    try {
      const answer = await request(url, { headersTimeout: 2000, bodyTimeout: 2000 });
      await answer.body.dump();
      if (answer.statusCode < 500) return undefined;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not up after ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A port free on 127.0.0.1 right now, for servers that cannot announce the one they bound. */
/**
 * One of our Portcullis bundles (`script`) as a child: run by this Node, the
 * catalogs named by the checkout (`PORTCULLIS_ROOT`), up once it announces.
 */
export function startPortcullisChild(
  name: string,
  script: string,
  args: string[],
  options: Pick<ServerChildOptions, 'timeoutMs'> = {},
): Promise<ServerChild> {
  return startServerChild({
    name,
    command: process.execPath,
    args: [script, ...args],
    env: { PORTCULLIS_ROOT: ROOT },
    ready: { kind: 'announce' },
    ...options,
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

export interface ResidentMemory {
  /** VmRSS, in MB. */
  rssMb: number;
  /** VmHWM: the peak resident set size so far, in MB. */
  peakMb: number;
}

/** Resident memory of a process from /proc (Linux); undefined elsewhere or once it is gone. */
export function residentMemory(pid: number): ResidentMemory | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kilobytes = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  const [rss, peak] = [kilobytes('VmRSS'), kilobytes('VmHWM')];
  return Number.isFinite(rss) && Number.isFinite(peak)
    ? { rssMb: rss / 1024, peakMb: peak / 1024 }
    : undefined;
}

/** Linux's USER_HZ: /proc reports CPU time in ticks of 1/100 s. */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux); undefined elsewhere. */
export function cpuTimeMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : undefined;
}

/**
 * Waits until a process has gone quiet (less than `busyShare` of one CPU over
 * a window of `windowMs`), `maxMs` at most: what a server does after a cell
 * (closing sessions, logging) must not run into the next configuration's
 * counted window. Returns at once where /proc cannot be read.
 */
export async function settle(
  pid: number,
  { windowMs = 200, busyShare = 0.1, maxMs = 10_000 } = {},
): Promise<void> {
  const deadline = performance.now() + maxMs;
  let before = cpuTimeMs(pid);
  while (before !== undefined && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const now = cpuTimeMs(pid);
    if (now === undefined || now - before < windowMs * busyShare) return;
    before = now;
  }
}
