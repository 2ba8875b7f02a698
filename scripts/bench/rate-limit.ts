/**
 * What the rate limiter costs a governed call (never a test): the gateway's
 * core as `bench:core` drives it (./gateway/servers/portcullis-core.ts, a
 * fresh child per cell, `tools/call` on the 2026-07-28 wire through the MCP
 * endpoint's handle(), no inbound HTTP), with the limits off and on (an
 * agent and a connection limit so high nothing is refused: each call takes
 * a token from both buckets), on in-process state and on Redis. Cells are
 * interleaved round by round, the order rotating; medians over rounds, the
 * spread the largest round over the smallest. Beside it, the take alone:
 * one `takeTokens` of two buckets, in-process and on Redis, its CPU timed in
 * this process, over the CPU a call costs with the limits off, a figure the
 * machine's noise moves far less.
 *
 *   npm run bench:rate-limit -- [--duration 3] [--warmup 2] [--rounds 5] [--concurrency 1] [--state memory,redis]
 * Target: the limiter under 3% of a governed call's CPU. Exits 0 whatever the verdicts.
 */
import { execFile } from 'node:child_process';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { parseArgs, promisify } from 'node:util';
import { RedisSharedState } from '../../runtime/adapters/redis/redis-shared-state.ts';
import { MemorySharedState } from '../../runtime/core/ports/shared-state/memory-shared-state.ts';
import type { SharedState } from '../../runtime/core/ports/shared-state/shared-state.ts';
import { markdownTable, median } from './bench-table.ts';
import { bundledServer, bundleServers } from './gateway/bundle-servers.ts';
import { ROOT } from './gateway/paths.ts';
import { startServerChild } from './gateway/server-child.ts';

const run = promisify(execFile);
const TARGET = 1.03;
const REDIS_URL = process.env.PORTCULLIS_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** So high that nothing is refused: every call takes a token from both buckets. */
const LIMITS_ON = {
  PORTCULLIS_RATE_LIMIT_AGENT_PER_MINUTE: '1000000',
  PORTCULLIS_RATE_LIMIT_CONNECTION_PER_MINUTE: '1000000',
};

type State = 'memory' | 'redis';
interface Cell {
  state: State;
  limits: 'off' | 'on';
}
interface CellRun {
  calls: number;
  seconds: number;
  cpuUs: number;
}

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '1' },
    state: { type: 'string', default: 'memory,redis' },
  },
});
const durationMs = Number(values.duration) * 1000;
const warmupMs = Number(values.warmup) * 1000;
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);
const states = values.state.split(',') as State[];
if (
  !(durationMs > 0) ||
  !(warmupMs >= 0) ||
  !(rounds >= 1) ||
  !(concurrency >= 1) ||
  !states.every((s) => s === 'memory' || s === 'redis')
) {
  console.error('bench:rate-limit: see the usage at the top of scripts/bench/rate-limit.ts');
  process.exit(2);
}

const key = (cell: Cell) => `${cell.state} limits ${cell.limits}`;
const perCall = (done: CellRun) => done.cpuUs / done.calls;

async function runCell(upstream: string, cell: Cell): Promise<CellRun> {
  const env: Record<string, string | undefined> = { ...process.env, PORTCULLIS_ROOT: ROOT };
  for (const name of Object.keys(env))
    if (name.startsWith('PORTCULLIS_RATE_LIMIT_') || name === 'BENCH_CHILD_REDIS_URL')
      delete env[name];
  if (cell.limits === 'on') Object.assign(env, LIMITS_ON);
  if (cell.state === 'redis') env.BENCH_CHILD_REDIS_URL = REDIS_URL;
  const args = [
    bundledServer('portcullis-core'),
    upstream,
    'modern',
    String(concurrency),
    String(durationMs),
    String(warmupMs),
  ];
  const { stdout } = await run(process.execPath, args, { env, maxBuffer: 1024 * 1024 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as CellRun;
}

/** A take from two buckets (agent, connection) of `state`, CPU µs in this process; the median of 15 rounds. */
async function takeMicros(state: SharedState, calls: number): Promise<number> {
  const rule = { perMinute: 1_000_000, burst: 1_000_000 };
  const buckets = [
    { key: `rate:agent:bench-${process.pid}`, rule },
    { key: `rate:connection:bench-${process.pid}`, rule },
  ];
  const once = async () => {
    for (let i = 0; i < calls; i++) await state.takeTokens(buckets);
  };
  await once();
  const times: number[] = [];
  for (let round = 0; round < 15; round++) {
    const started = process.cpuUsage();
    await once();
    const spent = process.cpuUsage(started);
    times.push((spent.user + spent.system) / calls);
  }
  await state.close();
  return median(times)!;
}

function spread(values: number[]): string {
  const smallest = Math.min(...values);
  return values.length < 2 ? '—' : `+${Math.round((Math.max(...values) / smallest - 1) * 100)}%`;
}

const verdict = (ratio: number | undefined) =>
  ratio === undefined
    ? ['—', `≤ ${TARGET}×`, '? n/a']
    : [`${ratio.toFixed(3)}×`, `≤ ${TARGET}×`, ratio <= TARGET ? '✓ pass' : '✗ FAIL'];

async function main(): Promise<void> {
  const load = loadavg();
  await bundleServers(['upstream', 'portcullis-core']);
  const cells: Cell[] = states.flatMap((state) => [
    { state, limits: 'off' as const },
    { state, limits: 'on' as const },
  ]);
  const upstream = await startServerChild({
    name: 'upstream',
    command: process.execPath,
    args: [bundledServer('upstream')],
    ready: { kind: 'announce' },
  });
  const runs = new Map<string, CellRun[]>(cells.map((cell) => [key(cell), []]));
  try {
    for (let round = 0; round < rounds; round++) {
      const order = cells.map((_, i) => cells[(i + round) % cells.length]!);
      for (const cell of order) {
        const done = await runCell(upstream.url!, cell);
        runs.get(key(cell))!.push(done);
        console.error(
          `bench: round ${round + 1}/${rounds} ${key(cell)}: ${Math.round(done.calls / done.seconds)} calls/s, ${Math.round(perCall(done))} µs CPU/call`,
        );
      }
    }
  } finally {
    await upstream.close();
  }
  const cpuOf = (cell: Cell) => median(runs.get(key(cell))!.map(perCall))!;
  const figures = markdownTable(
    ['state', 'limits', 'calls/s', 'CPU/call', 'spread'],
    cells.map((cell) => {
      const done = runs.get(key(cell))!;
      return [
        cell.state,
        cell.limits,
        Math.round(median(done.map((r) => r.calls / r.seconds))!).toLocaleString('en-US'),
        `${Math.round(cpuOf(cell))} µs`,
        spread(done.map(perCall)),
      ];
    }),
  );
  const bucket = await takeMicros(new MemorySharedState(), 20_000);
  const redisTake = states.includes('redis')
    ? await takeMicros(
        await RedisSharedState.open({
          url: REDIS_URL,
          keyPrefix: `portcullis-bench:${process.pid}:`,
        }),
        2_000,
      )
    : undefined;
  const baseline = cpuOf({ state: 'memory', limits: 'off' });
  const checks = [
    ...states.map((state) => [
      `${state}: CPU/call, limits on vs off`,
      ...verdict(cpuOf({ state, limits: 'on' }) / cpuOf({ state, limits: 'off' })),
    ]),
    [
      `in-process buckets alone (${bucket.toFixed(2)} µs a take from 2) over a call's ${Math.round(baseline)} µs`,
      ...verdict(1 + bucket / baseline),
    ],
    ...(redisTake === undefined
      ? []
      : [
          [
            `Redis take alone (${redisTake.toFixed(1)} µs CPU here, an EVALSHA) over a call's ${Math.round(baseline)} µs`,
            ...verdict(1 + redisTake / baseline),
          ],
        ]),
  ];
  console.log(figures);
  console.log('');
  console.log(
    markdownTable(['target (CPU per governed call)', 'ratio', 'target', 'verdict'], checks),
  );
  console.log(
    [
      '',
      'What was measured:',
      `- Per cell, a fresh child (Portcullis on SQLite, in-process or Redis shared state), ${warmupMs / 1000} s warm-up and ${durationMs / 1000} s counted of \`tools/call\` (2026-07-28) in ${concurrency} loop(s); ${rounds} interleaved rounds, medians.`,
      '- limits on: an agent and a connection limit of 1,000,000 a minute, so each call takes a token from both buckets and none is refused.',
      "- The whole-call ratio carries the machine's noise (see the spread): a difference smaller than the spread is not one this run can show. The take-alone lines are the limiter's own CPU: on in-process state the arithmetic, on Redis one EVALSHA per call (both buckets; the gateway's side of it, its wait for the reply costs no CPU).",
      `- Machine: ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, load average at start ${load.map((l) => l.toFixed(2)).join(' ')}.`,
    ].join('\n'),
  );
}

await main();
