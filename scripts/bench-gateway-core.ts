/**
 * The gateway's core per call (never a test): the real gateway (SQLite,
 * governance, audit, the outbound client) answering `tools/call` through its
 * MCP endpoint's `handle()`, driven in its own process
 * (./bench/gateway/servers/portcullis-core.ts), in front of the benchmark's
 * REST upstream. No inbound HTTP and no load generator share the two cores
 * with it: the figure for an A/B of a change to the core, for "a stateless
 * request costs no more than a stateful one" with each wire's own bytes left
 * out, and for the time spent inside SQLite per call. The spread column says
 * how far the rounds of a cell lay apart on this run's machine.
 *
 * Cells (build × era × concurrency) run in fresh children, interleaved round
 * by round with the order rotating; the report gives medians over rounds.
 * With BENCH_GATEWAY_BASE_BIN (see bench-gateway.ts) another build's core
 * runs beside this one, when that build has it.
 *
 *   npm run bench:core -- [--duration 3] [--warmup 2] [--rounds 3] [--concurrency 1,16]
 * Exits 0 whatever the verdicts (2 on a usage error).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { parseArgs, promisify } from 'node:util';
import { markdownTable, median } from './bench/bench-table.ts';
import { baseServer, bundledServer, bundleServers } from './bench/gateway/bundle-servers.ts';
import type { StatementTime } from './bench/gateway/core/statement-time.ts';
import { ROOT } from './bench/gateway/paths.ts';
import { startServerChild } from './bench/gateway/server-child.ts';

const run = promisify(execFile);
const ERAS = ['legacy', 'modern'] as const;
type Era = (typeof ERAS)[number];

interface Cell {
  build: 'this' | 'base';
  era: Era;
  concurrency: number;
}

interface CellRun {
  calls: number;
  seconds: number;
  cpuUs: number;
  statements: StatementTime[];
}

interface Options {
  durationMs: number;
  warmupMs: number;
  rounds: number;
  concurrencies: number[];
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '3' },
      warmup: { type: 'string', default: '2' },
      rounds: { type: 'string', default: '3' },
      concurrency: { type: 'string', default: '1,16' },
    },
  });
  const [duration, warmup, rounds] = [values.duration, values.warmup, values.rounds].map(Number);
  if (!(duration! > 0) || !(warmup! >= 0) || !Number.isInteger(rounds) || rounds! < 1)
    throw new TypeError('--duration takes seconds > 0, --warmup seconds ≥ 0, --rounds a count ≥ 1');
  const concurrencies = values.concurrency.split(',').map(Number);
  if (!concurrencies.every((c) => Number.isInteger(c) && c >= 1))
    throw new TypeError('--concurrency takes positive integers, comma-separated');
  return { durationMs: duration! * 1000, warmupMs: warmup! * 1000, rounds: rounds!, concurrencies };
}

/** The other build's core, when BENCH_GATEWAY_BASE_BIN names one that has it; else why not. */
function baseCore(): { script: string } | { skipped: string } {
  try {
    const script = baseServer('portcullis-core');
    return existsSync(script)
      ? { script }
      : { skipped: `${script} is missing (a build from before this benchmark)` };
  } catch (error) {
    return { skipped: (error as Error).message };
  }
}

const key = (cell: Cell) => `${cell.build} ${cell.era} c=${cell.concurrency}`;

async function runCell(script: string, upstream: string, cell: Cell, options: Options) {
  const args = [
    script,
    upstream,
    cell.era,
    String(cell.concurrency),
    String(options.durationMs),
    String(options.warmupMs),
  ];
  const { stdout } = await run(process.execPath, args, {
    env: { ...process.env, PORTCULLIS_ROOT: ROOT },
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as CellRun;
}

/** The largest round over the smallest, as `+12%`. */
function spread(values: number[]): string {
  const smallest = Math.min(...values);
  return values.length < 2 || !(smallest > 0)
    ? '—'
    : `+${Math.round((Math.max(...values) / smallest - 1) * 100)}%`;
}

const ratioOf = (ours: number | undefined, theirs: number | undefined) =>
  ours !== undefined && theirs ? ours / theirs : undefined;

/** A ratio against its bound of 1× (at most): the ratio, the bound, the verdict. */
function verdictOf(ratio: number | undefined): string[] {
  if (ratio === undefined) return ['—', '≤ 1×', '? n/a'];
  return [`${ratio.toFixed(2)}×`, '≤ 1×', ratio <= 1 ? '✓ pass' : '✗ FAIL'];
}

const perCall = (run: CellRun) => run.cpuUs / run.calls;
const sqlPerCall = (run: CellRun) =>
  run.statements.reduce((sum, statement) => sum + statement.totalUs, 0) / run.calls;

function report(cells: Cell[], runs: Map<string, CellRun[]>): string {
  const rows = cells.map((cell) => {
    const done = runs.get(key(cell))!;
    const top = done.at(-1)?.statements.slice(0, 2) ?? [];
    return [
      cell.build,
      cell.era === 'legacy' ? '2025-11-25' : '2026-07-28',
      String(cell.concurrency),
      `${Math.round(median(done.map((r) => r.calls / r.seconds)) ?? 0).toLocaleString('en-US')}`,
      `${Math.round(median(done.map(perCall)) ?? 0)} µs`,
      spread(done.map(perCall)),
      `${Math.round(median(done.map(sqlPerCall)) ?? 0)} µs`,
      top
        .map(
          (s) =>
            `${s.sql}… ${(s.count / done.at(-1)!.calls).toFixed(2)}×${Math.round(s.totalUs / s.count)} µs`,
        )
        .join('; '),
    ];
  });
  const figures = markdownTable(
    [
      'build',
      'wire',
      'c',
      'calls/s',
      'CPU/call',
      'spread',
      'SQLite/call',
      'slowest statements, last round (per call × each)',
    ],
    rows,
  );
  const cpuOf = (cell: Cell) => median(runs.get(key(cell))?.map(perCall) ?? []);
  const checks = cells
    .filter((cell) => cell.era === 'modern')
    .map((modern) => {
      const ratio = ratioOf(cpuOf(modern), cpuOf({ ...modern, era: 'legacy' }));
      return [
        `${modern.build}: 2026-07-28 CPU/call vs 2025-11-25`,
        String(modern.concurrency),
        ...verdictOf(ratio),
      ];
    });
  // With another build beside this one: nothing measured gets slower.
  const againstBase = cells
    .filter((cell) => cell.build === 'base')
    .map((base) => {
      const ratio = ratioOf(cpuOf({ ...base, build: 'this' }), cpuOf(base));
      const wire = base.era === 'legacy' ? '2025-11-25' : '2026-07-28';
      return [
        `this build's CPU/call vs base, ${wire}`,
        String(base.concurrency),
        ...verdictOf(ratio),
      ];
    });
  const verdicts = markdownTable(
    ['target (core only)', 'c', 'ratio', 'target', 'verdict'],
    [...checks, ...againstBase],
  );
  return `${figures}\n\n${verdicts}`;
}

async function main(): Promise<void> {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`bench:core: ${(error as Error).message}`);
    process.exit(2);
  }
  const load = loadavg();
  await bundleServers(['upstream', 'portcullis-core']);
  const base = baseCore();
  const scripts = {
    this: bundledServer('portcullis-core'),
    ...('script' in base ? { base: base.script } : {}),
  };
  const cells: Cell[] = (Object.keys(scripts) as Cell['build'][]).flatMap((build) =>
    options.concurrencies.flatMap((concurrency) =>
      ERAS.map((era) => ({ build, era, concurrency })),
    ),
  );
  const upstream = await startServerChild({
    name: 'upstream',
    command: process.execPath,
    args: [bundledServer('upstream')],
    ready: { kind: 'announce' },
  });
  const runs = new Map<string, CellRun[]>(cells.map((cell) => [key(cell), []]));
  try {
    for (let round = 0; round < options.rounds; round++) {
      const order = cells.map((_, i) => cells[(i + round) % cells.length]!);
      for (const cell of order) {
        const done = await runCell(scripts[cell.build]!, upstream.url!, cell, options);
        runs.get(key(cell))!.push(done);
        console.error(
          `bench: round ${round + 1}/${options.rounds} ${key(cell)}: ${Math.round(done.calls / done.seconds)} calls/s, ${Math.round(perCall(done))} µs CPU/call, ${Math.round(sqlPerCall(done))} µs in SQLite`,
        );
      }
    }
  } finally {
    await upstream.close();
  }
  console.log(report(cells, runs));
  console.log(
    [
      '',
      'What was measured:',
      `- Per cell, a fresh child: Portcullis set up as for bench:gateway, then ${options.warmupMs / 1000} s of warm-up and ${options.durationMs / 1000} s counted of \`tools/call\` through the MCP endpoint's handle() in c loops; ${options.rounds} interleaved round(s), medians over rounds.`,
      '- CPU/call: user + system time of the child (all its threads) over the counted window, per call; SQLite/call: the time inside better-sqlite3 statements, per call.',
      '- Not measured here: the inbound HTTP exchange (parsing, the socket, the bytes each wire adds); bench:gateway measures the whole.',
      ...('skipped' in base ? [`- base build skipped: ${base.skipped}`] : []),
      `- Machine: ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, load average at start ${load.map((l) => l.toFixed(2)).join(' ')}.`,
    ].join('\n'),
  );
}

await main();
