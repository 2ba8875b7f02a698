/**
 * Start to ready: `node dist/server.mjs` (what `npm start` runs after its
 * build) on a fresh data folder, timed from spawn until `/readyz` answers
 * 200, then its resident memory with every catalog loaded. The first start of
 * a data folder also migrates the store and creates the keys, so both a first
 * and a later start are measured. The CPU time the process used until ready
 * is given beside the wall time: on a machine others load, the wall time
 * measures them too. With `BENCH_GATEWAY_BASE_DIST` (a copy of another
 * build's `dist/` inside a checkout, so its packages and `generated/`
 * resolve), that build's server is timed too, alternating with this one's
 * round by round, for an A/B in one run.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markdownTable, median } from '../bench-table.ts';
import { ROOT } from './paths.ts';
import { cpuTimeMs, freePort, residentMemory } from './server-child.ts';

export interface StartupSample {
  firstStartMs: number;
  laterStartMs: number;
  /** CPU time (user + system, every thread) of the later start until ready. */
  laterStartCpuMs: number;
  readyRssMb: number;
}

async function startOnce(
  server: string,
  dataDir: string,
): Promise<{ ms: number; cpuMs: number; rssMb: number }> {
  const port = await freePort();
  const began = performance.now();
  const child = spawn(process.execPath, [server], {
    env: {
      ...process.env,
      PORT: String(port),
      PORTCULLIS_DATA_DIR: dataDir,
      PORTCULLIS_LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (;;) {
      try {
        const reply = await fetch(`http://127.0.0.1:${port}/readyz`);
        if (reply.status === 200) break;
      } catch {
        // not listening yet
      }
      if (performance.now() - began > 20_000)
        throw new Error('the gateway did not become ready in 20 s');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const ms = performance.now() - began;
    const cpuMs = cpuTimeMs(child.pid!) ?? Number.NaN;
    // Settled: what a ready gateway holds, not the start's transient peak.
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { ms, cpuMs, rssMb: residentMemory(child.pid!)?.rssMb ?? Number.NaN };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** This build's server, and another build's when `BENCH_GATEWAY_BASE_DIST` names its `dist/`. */
export function startupServers(): Array<{ name: string; server: string }> {
  const base = process.env.BENCH_GATEWAY_BASE_DIST;
  return [
    { name: 'portcullis', server: join(ROOT, 'dist', 'server.mjs') },
    ...(base ? [{ name: 'portcullis-base', server: join(base, 'server.mjs') }] : []),
  ];
}

/** Samples per server, the servers alternating round by round. */
export async function measureStartup(
  rounds: number,
  servers: readonly string[] = [join(ROOT, 'dist', 'server.mjs')],
): Promise<StartupSample[][]> {
  const samples: StartupSample[][] = servers.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [index, server] of servers.entries()) {
      const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-startup-'));
      try {
        const first = await startOnce(server, dataDir);
        const later = await startOnce(server, dataDir);
        samples[index]!.push({
          firstStartMs: first.ms,
          laterStartMs: later.ms,
          laterStartCpuMs: later.cpuMs,
          readyRssMb: later.rssMb,
        });
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  }
  return samples;
}

export function formatStartup(samples: readonly StartupSample[], name = 'portcullis'): string {
  const of = (pick: (s: StartupSample) => number) => median(samples.map(pick)) ?? Number.NaN;
  const first = of((s) => s.firstStartMs);
  const later = of((s) => s.laterStartMs);
  const laterCpu = of((s) => s.laterStartCpuMs);
  const spread = (pick: (s: StartupSample) => number) => {
    const values = samples.map(pick);
    return `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
  };
  const rss = of((s) => s.readyRssMb);
  const verdict = (ok: boolean) => (ok ? '✓ pass' : '✗ FAIL');
  return markdownTable(
    [`${name} start (median of ${samples.length})`, 'measured', 'target', 'verdict'],
    [
      [
        'first start to ready (new data folder)',
        `${first.toFixed(0)} ms`,
        '< 1500 ms',
        verdict(first < 1500),
      ],
      [
        'later start to ready (a replica restarted)',
        `${later.toFixed(0)} ms (${spread((s) => s.laterStartMs)})`,
        '< 500 ms',
        verdict(later < 500),
      ],
      [
        'later start: CPU time until ready',
        `${laterCpu.toFixed(0)} ms (${spread((s) => s.laterStartCpuMs)})`,
        '',
        '',
      ],
      [
        'resident memory when ready, all catalogs loaded',
        `${rss.toFixed(0)} MB`,
        '< 200 MB',
        verdict(rss < 200),
      ],
    ],
  );
}
