/**
 * Deployments side by side (never a test): the built gateway
 * (`dist/server.mjs`) as one replica on SQLite, one on PostgreSQL + Redis,
 * and two on PostgreSQL + Redis behind Debian's nginx round-robin
 * (`deploy/nginx/portcullis.conf`), and the first two again with the rate
 * limits on (./deployments/deployment.ts), all started once and measured in
 * the same run: a governed `tools/call` through `/mcp` (agent key, grant,
 * policy, argument validation, audit) forwarded to a real SDK MCP server on
 * loopback (./deployments/sdk-upstream.ts), `--concurrency` sessions looping
 * calls. Deployments are interleaved round by round, the order rotating;
 * per deployment the medians over rounds of calls/s, p50, p95 and the CPU per
 * call of its gateway process(es), nginx, its PostgreSQL backends and the
 * Redis server; ratios against SQLite are the medians of each round's own
 * ratio (the two were measured minutes apart at most), with their range.
 * The rate limiter's own take is timed in this process beside it. The
 * traced deployments send their spans to an OTLP/HTTP receiver in this
 * process (it counts the bytes; its CPU is not the gateway's).
 *
 *   npm run bench:deployments -- [--duration 5] [--warmup 2] [--rounds 5] [--warmup-rounds 1] [--concurrency 8]
 *       [--wire legacy|modern] [--only sqlite,postgres+redis,...]
 * `npm run bench:rate-limit` is this with `--only` the four rate-limit rows.
 * Exits 0 whatever the verdicts (2 on a usage error).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { TEST_REDIS_URL } from '../../test/support/redis.ts';
import { CpuProbes, processesMs } from './deployments/cpu-probes.ts';
import { DEPLOYMENTS, type Deployment, startDeployment } from './deployments/deployment.ts';
import { measureTakes } from './deployments/limiter-take.ts';
import { measureRound, type RoundResult } from './deployments/measure-round.ts';
import { formatDeployments } from './deployments/report.ts';
import { ROOT } from './gateway/paths.ts';
import { type ServerChild, startServerChild } from './gateway/server-child.ts';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '5' },
    'warmup-rounds': { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '8' },
    wire: { type: 'string', default: 'legacy' },
    only: { type: 'string', default: DEPLOYMENTS.map((d) => d.name).join(',') },
  },
});
const options = {
  durationMs: Number(values.duration) * 1000,
  warmupMs: Number(values.warmup) * 1000,
  rounds: Number(values.rounds),
  warmupRounds: Number(values['warmup-rounds']),
  concurrency: Number(values.concurrency),
  wire: values.wire as 'legacy' | 'modern',
};
const specs = DEPLOYMENTS.filter((d) => values.only.split(',').includes(d.name));
if (
  !(options.durationMs > 0) ||
  !(options.warmupMs > 0) ||
  !Number.isInteger(options.rounds) ||
  options.rounds < 1 ||
  !Number.isInteger(options.warmupRounds) ||
  options.warmupRounds < 0 ||
  !Number.isInteger(options.concurrency) ||
  options.concurrency < 1 ||
  !['legacy', 'modern'].includes(options.wire) ||
  specs.length === 0 ||
  !specs.some((d) => d.name === 'sqlite')
) {
  console.error(
    `bench:deployments: see the usage at the top of scripts/bench/deployments.ts (--only takes ${DEPLOYMENTS.map((d) => d.name).join(', ')}, sqlite among them: it is the baseline)`,
  );
  process.exit(2);
}

const IDLE_WINDOW_MS = 5_000;

/** An OTLP/HTTP receiver on loopback for the traced deployments: it takes the spans and answers 200. */
async function startOtlpReceiver(): Promise<{ url: string; bytes: () => number; close(): void }> {
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    request.on('end', () =>
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bytes: () => bytes,
    close: () => server.close(),
  };
}

/** Redis database indexes empty at the start, one per deployment that uses Redis, from 15 down; emptied after. */
async function freeRedisDatabases(count: number): Promise<number[]> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    const used = new Set(
      [...(await redis.info('keyspace')).matchAll(/^db(\d+):/gm)].map((m) => Number(m[1])),
    );
    const free = [15, 14, 13, 12, 11, 10, 9, 8].filter((db) => !used.has(db));
    if (free.length < count) throw new Error(`fewer than ${count} empty Redis databases`);
    return free.slice(0, count);
  } finally {
    redis.disconnect();
  }
}

async function emptyRedisDatabases(dbs: number[]): Promise<void> {
  for (const db of dbs) {
    const redis = new Redis(TEST_REDIS_URL, { db });
    await redis.flushdb();
    redis.disconnect();
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  const loads: number[] = [loadavg()[0]!];
  const sampler = setInterval(() => loads.push(loadavg()[0]!), 5_000);
  const dbs = await freeRedisDatabases(specs.length + 1);
  const probes = new CpuProbes(TEST_REDIS_URL);
  const running: Deployment[] = [];
  let upstream: ServerChild | undefined;
  const otlp = await startOtlpReceiver();
  const results = new Map<string, Array<RoundResult | undefined>>(
    specs.map((spec) => [spec.name, []]),
  );
  let takes: Awaited<ReturnType<typeof measureTakes>> | undefined;
  /** Each deployment's gateway CPU with no call at all, in ms per s (timers, pools, Redis): a cost per process, not per call. */
  const idle = new Map<string, number>();
  try {
    upstream = await startServerChild({
      name: 'deployments-upstream',
      command: process.execPath,
      args: ['--import', 'tsx', join(ROOT, 'scripts', 'bench', 'deployments', 'sdk-upstream.ts')],
      cwd: ROOT,
      ready: { kind: 'announce' },
    });
    for (const [index, spec] of specs.entries()) {
      console.error(`bench: starting ${spec.name}`);
      running.push(await startDeployment(spec, upstream.url!, dbs[index]!, otlp.url));
    }
    const cellSeconds = (options.warmupMs + options.durationMs) / 1000;
    const total = options.warmupRounds + options.rounds;
    console.error(`bench: measuring, about ${Math.round(running.length * total * cellSeconds)} s`);
    for (let round = 0; round < total; round++) {
      const order = running.map((_, i) => running[(i + round) % running.length]!);
      const warm = round < options.warmupRounds;
      for (const deployment of order) {
        const label = `${warm ? 'warm-up round' : `round ${round - options.warmupRounds + 1}/${options.rounds}`} ${deployment.spec.name}`;
        let result: RoundResult | undefined;
        try {
          result = await measureRound(deployment, probes, options);
        } catch (error) {
          // A round that fails (a session not opened in time on a loaded machine) is left out, and said.
          console.error(`bench: ${label} failed: ${(error as Error).message}`);
        }
        if (!warm) results.get(deployment.spec.name)!.push(result);
        if (result)
          console.error(
            `bench: ${label}: ${Math.round(result.callsPerSecond)} calls/s, p50 ${result.p50Ms.toFixed(2)} ms, p95 ${result.p95Ms.toFixed(2)} ms, gateway ${Math.round(result.cpu.gateway)} µs CPU/call, ${result.errors} errors${result.firstError ? ` (${result.firstError.slice(0, 160)})` : ''}`,
          );
      }
    }
    for (const deployment of running) {
      const before = processesMs(deployment.gatewayPids);
      await new Promise((resolve) => setTimeout(resolve, IDLE_WINDOW_MS));
      idle.set(
        deployment.spec.name,
        ((processesMs(deployment.gatewayPids) - before) * 1000) / IDLE_WINDOW_MS,
      );
    }
    if (specs.some((spec) => spec.limits)) {
      const redisUrl = new URL(TEST_REDIS_URL);
      redisUrl.pathname = `/${dbs.at(-1)}`;
      takes = await measureTakes(redisUrl.toString(), options.concurrency);
    }
  } finally {
    clearInterval(sampler);
    for (const deployment of running) await deployment.close();
    await upstream?.close();
    otlp.close();
    await probes.close();
    await emptyRedisDatabases(dbs);
  }
  loads.push(loadavg()[0]!);
  console.log(
    formatDeployments({
      specs,
      results,
      idle,
      takes,
      spanKiB: otlp.bytes() / 1024,
      options,
      loads,
      machine: `${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}`,
      totalSeconds: (performance.now() - started) / 1000,
    }),
  );
}

await main();
