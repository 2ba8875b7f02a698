/**
 * Gateway benchmark (never a test): throughput and latency of MCP gateways in
 * front of one REST endpoint, all measured in the same run so that a noisy
 * machine slows every configuration alike. Exits 0 whatever the verdicts (2 on
 * a usage error).
 *
 * What runs: a trivial REST upstream (node:http, ~200-byte JSON), and in front
 * of it each configuration in a child process of its own (so its CPU is not the
 * load generator's and its resident memory can be read):
 *   upstream-direct, node-reverse-proxy           plain HTTP baselines
 *   lean-reference                                hand-written JSON-RPC endpoint: the ceiling
 *   sdk-minimal                                   McpServer + StreamableHTTPServerTransport
 *   ivotoby-openapi-mcp-server, openapi-mcp-generator   installed into .cache/bench at run time
 *   portcullis, portcullis-2026, portcullis-oauth Portcullis, governance on
 *   portcullis-base, portcullis-2026-base         another build's server, for an A/B in one run
 *                                                 (BENCH_GATEWAY_BASE_BIN: a copy of its bench bin folder;
 *                                                 skipped, with the reason, when unset; the start
 *                                                 figure likewise from BENCH_GATEWAY_BASE_DIST: a copy of
 *                                                 its dist/ inside a checkout)
 * and, in front of a lean upstream MCP server (node:http, one tool, both eras)
 * in a child of its own, the forwarding configurations:
 *   mcp-direct, mcp-reverse-proxy                 the upstream itself, and one bare hop
 *   mcp-hub                                       installed at run time; HTTP+SSE load
 *   portcullis-forwarding                         the upstream as a remote MCP connection
 *                                                 (skipped, with the reason, on a build without them)
 *   portcullis-forwarding-base                    the same from another build (BENCH_GATEWAY_BASE_BIN)
 *
 * How: the load generator stays in this process. Per cell (configuration ×
 * concurrency) it opens one MCP session per concurrency slot (raw JSON-RPC over
 * Streamable HTTP, undici keep-alive pools), then every slot loops `tools/call`
 * for the duration after a warm-up; a call counts when it is a JSON-RPC result
 * without isError. Rounds are interleaved (every cell once per round, the order
 * rotating; before the next cell, the server of the last one is left to go
 * quiet), and the report gives medians over rounds: req/s, p50, p99, errors,
 * ratios against lean-reference, upstream-direct and mcp-direct from the same
 * run, the Portcullis targets, and each server's resident memory.
 *
 *   npx tsx scripts/bench-gateway.ts [--duration 3] [--warmup 0.5] [--rounds 3]
 *       [--concurrency 1,16,64] [--only a,b] [--skip a,b] [--sessions 1000]
 * The same settings from the environment: BENCH_GATEWAY_DURATION, _WARMUP,
 * _ROUNDS, _CONCURRENCY, _ONLY, _SKIP, _SESSIONS (flags win). Durations in
 * seconds. With any forwarding configuration, Portcullis's resident memory
 * is also measured holding `--sessions` live upstream sessions, one per
 * agent with a personal credential (./bench/gateway/sessions-memory.ts).
 * BENCH_GATEWAY_CPU_PROF=<folder> runs every Node server child under
 * `--cpu-prof`, writing its profile there when it stops (for finding where a
 * configuration spends its time; the numbers of such a run are not comparable).
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { bundledServer, bundleServers } from './bench/gateway/bundle-servers.ts';
import { runCell } from './bench/gateway/load/load-cell.ts';
import { formatTargets } from './bench/gateway/portcullis-targets.ts';
import {
  type CellRounds,
  formatMemory,
  formatResults,
  type MemoryRow,
  summarize,
} from './bench/gateway/report.ts';
import {
  cpuTimeMs,
  type ResidentMemory,
  residentMemory,
  type ServerChild,
  settle,
  startServerChild,
} from './bench/gateway/server-child.ts';
import { formatSessionsMemory, measureSessionsMemory } from './bench/gateway/sessions-memory.ts';
import { formatStartup, measureStartup, startupServers } from './bench/gateway/startup.ts';
import { TARGETS } from './bench/gateway/targets/index.ts';
import type { StartedTarget } from './bench/gateway/targets/target.ts';

interface BenchOptions {
  durationMs: number;
  warmupMs: number;
  rounds: number;
  concurrencies: number[];
  targets: string[];
  /** Upstream sessions Portcullis holds for the memory figure (0: not measured). */
  sessions: number;
}

function parseOptions(argv: string[]): BenchOptions {
  const env = (name: string) => process.env[`BENCH_GATEWAY_${name}`];
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: env('DURATION') ?? '3' },
      warmup: { type: 'string', default: env('WARMUP') ?? '0.5' },
      rounds: { type: 'string', default: env('ROUNDS') ?? '3' },
      concurrency: { type: 'string', default: env('CONCURRENCY') ?? '1,16,64' },
      only: { type: 'string', default: env('ONLY') ?? '' },
      skip: { type: 'string', default: env('SKIP') ?? '' },
      sessions: { type: 'string', default: env('SESSIONS') ?? '1000' },
    },
  });
  const [duration, warmup, rounds] = [values.duration, values.warmup, values.rounds].map(Number);
  if (!(duration! > 0) || !(warmup! >= 0) || !Number.isInteger(rounds) || rounds! < 1)
    throw new TypeError('--duration takes seconds > 0, --warmup seconds ≥ 0, --rounds a count ≥ 1');
  const sessions = Number(values.sessions);
  if (!Number.isInteger(sessions) || sessions < 0)
    throw new TypeError('--sessions takes a count ≥ 0 (0: no memory figure with live sessions)');
  const concurrencies = values.concurrency.split(',').map(Number);
  if (!concurrencies.every((c) => Number.isInteger(c) && c >= 1))
    throw new TypeError('--concurrency takes positive integers, comma-separated');
  const list = (value: string) =>
    value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const [only, skip] = [list(values.only), list(values.skip)];
  const known = TARGETS.map((t) => t.name);
  const unknown = [...only, ...skip].filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new TypeError(`--only and --skip take ${known.join(', ')}; not ${unknown.join(', ')}`);
  return {
    durationMs: duration! * 1000,
    warmupMs: warmup! * 1000,
    rounds: rounds!,
    concurrencies,
    targets: known.filter((n) => (only.length === 0 || only.includes(n)) && !skip.includes(n)),
    sessions,
  };
}

interface Running {
  name: string;
  upstream: 'rest' | 'mcp';
  target: StartedTarget;
  idle: ResidentMemory | undefined;
}

/** The upstreams' URLs: the REST one always runs, the MCP one only for the forwarding rows. */
interface UpstreamUrls {
  rest: string;
  mcp: string | undefined;
  /** The MCP upstream's process, handed to mcp-direct for its server CPU. */
  mcpPid: number | undefined;
}

async function startTargets(names: string[], upstreams: UpstreamUrls, skipped: string[]) {
  const running: Running[] = [];
  for (const target of TARGETS.filter((t) => names.includes(t.name))) {
    const upstream = target.upstream ?? 'rest';
    try {
      const started =
        upstream === 'mcp'
          ? await target.start(upstreams.mcp!, upstreams.mcpPid)
          : await target.start(upstreams.rest);
      const idle = started.pid === undefined ? undefined : residentMemory(started.pid);
      running.push({ name: target.name, upstream, target: started, idle });
      console.error(`bench: ${target.name} up at ${started.url}`);
    } catch (error) {
      skipped.push(`${target.name} skipped: ${(error as Error).message}`);
      console.error(`bench: skipping ${target.name}: ${(error as Error).message}`);
    }
  }
  return running;
}

async function measure(running: Running[], options: BenchOptions): Promise<CellRounds[]> {
  const cells = running.flatMap(({ name, upstream, target }) =>
    options.concurrencies.map(
      (concurrency): CellRounds => ({
        target: name,
        upstream,
        mode: target.mode,
        concurrency,
        rounds: [],
        failures: [],
      }),
    ),
  );
  for (let round = 0; round < options.rounds; round++) {
    for (const [index, concurrency] of options.concurrencies.entries()) {
      const shift = round + index;
      const order = running.map((_, i) => running[(i + shift) % running.length]!);
      for (const { name, target } of order) {
        const cell = cells.find((c) => c.target === name && c.concurrency === concurrency)!;
        const label = `round ${round + 1}/${options.rounds} c=${concurrency} ${name}`;
        try {
          const { pid } = target;
          const cpuClock = pid === undefined ? undefined : () => cpuTimeMs(pid);
          const result = await runCell(target, { ...options, concurrency, cpuClock });
          // Its aftermath (mcp-hub's sessions closing, say) is not the next cell's.
          if (pid !== undefined) await settle(pid);
          cell.rounds.push(result);
          const p = (v: number | undefined) => (v === undefined ? '—' : `${v.toFixed(2)} ms`);
          console.error(
            `bench: ${label}: ${Math.round(result.requestsPerSecond)} req/s, p50 ${p(result.p50Ms)}, p99 ${p(result.p99Ms)}, CPU/call ${result.cpuMsPerCall === undefined ? '—' : `${Math.round(result.cpuMsPerCall * 1000)} µs`}, ${result.errors} errors${result.firstError ? ` (${result.firstError.slice(0, 120)})` : ''}`,
          );
        } catch (error) {
          cell.failures.push((error as Error).message);
          console.error(`bench: ${label} failed: ${(error as Error).message}`);
        }
      }
    }
  }
  return cells;
}

function formatContext(options: BenchOptions, load: number[], totalMs: number): string[] {
  const machine = `${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}`;
  return [
    'What was measured:',
    `- Per cell: ${options.warmupMs / 1000} s warm-up, then ${options.durationMs / 1000} s counted; ${options.rounds} interleaved round(s), the order rotating, each cell once the last cell's server has gone quiet (under a tenth of a CPU, 10 s at most). Medians over rounds of req/s (OK calls / s), p50 and p99 (per-call latency of OK calls), server CPU/call (user + system time of the server process over the counted window, from /proc, per call: the least noise-prone figure); errors summed.`,
    '- MCP: one session per slot (initialize, notifications/initialized, a GET stream when the server offers one), then tools/call in a loop; OK = JSON-RPC result without isError. http: GET /v1/users/quotas, OK = 2xx.',
    '- HTTP+SSE (mcp-hub): one GET stream per slot, its endpoint event, initialize; then POST tools/call, the response read from the stream.',
    '- "vs base": MCP rows against lean-reference, http rows against upstream-direct, the forwarding rows (in front of the lean upstream MCP server) against mcp-direct; same concurrency, same run.',
    '- The load generator shares the machine with the servers: at high rates (upstream-direct, the proxy) it is likely the limit.',
    `- Machine: ${machine}, load average at start ${load.map((l) => l.toFixed(2)).join(' ')}; total ${(totalMs / 1000).toFixed(0)} s.`,
  ];
}

async function main(argv: string[]): Promise<void> {
  let options: BenchOptions;
  try {
    options = parseOptions(argv);
  } catch (error) {
    console.error((error as Error).message);
    process.exitCode = 2;
    return;
  }
  const started = performance.now();
  const load = loadavg();
  const notes: string[] = [];
  await bundleServers();
  const upstream: ServerChild = await startServerChild({
    name: 'upstream',
    command: process.execPath,
    args: [bundledServer('upstream')],
    ready: { kind: 'announce' },
  });
  const upstreamIdle = residentMemory(upstream.pid);
  const forwarding = TARGETS.some((t) => t.upstream === 'mcp' && options.targets.includes(t.name));
  let mcpUpstream: ServerChild | undefined;
  let running: Running[] = [];
  let cells: CellRounds[] = [];
  const memory: MemoryRow[] = [];
  try {
    mcpUpstream = forwarding
      ? await startServerChild({
          name: 'mcp-upstream',
          command: process.execPath,
          args: [bundledServer('mcp-upstream')],
          ready: { kind: 'announce' },
        })
      : undefined;
    const mcpUpstreamIdle = mcpUpstream && residentMemory(mcpUpstream.pid);
    const upstreams = { rest: upstream.url!, mcp: mcpUpstream?.url, mcpPid: mcpUpstream?.pid };
    running = await startTargets(options.targets, upstreams, notes);
    const cellSeconds = (options.warmupMs + options.durationMs) / 1000;
    const total = running.length * options.concurrencies.length * options.rounds * cellSeconds;
    console.error(`bench: measuring, about ${Math.round(total)} s`);
    cells = await measure(running, options);
    memory.push({ name: 'upstream', idle: upstreamIdle, after: residentMemory(upstream.pid) });
    if (mcpUpstream)
      memory.push({
        name: 'mcp-upstream',
        idle: mcpUpstreamIdle,
        after: residentMemory(mcpUpstream.pid),
      });
    // mcp-direct's process is mcp-upstream's, already in the table.
    for (const { name, target, idle } of running)
      if (target.pid !== undefined && target.pid !== mcpUpstream?.pid)
        memory.push({ name, idle, after: residentMemory(target.pid) });
  } finally {
    await Promise.all(running.map(({ target }) => target.close()));
    await Promise.all([upstream.close(), mcpUpstream?.close()]);
  }
  const rows = cells.map(summarize);
  for (const { target } of running) notes.push(...(target.notes ?? []));
  for (const row of rows)
    if (row.firstError)
      notes.push(
        `${row.target} c=${row.concurrency}, first error: ${row.firstError.slice(0, 300)}`,
      );

  console.log(formatResults(rows));
  console.log('');
  console.log('Portcullis targets (ratios of medians from this run):');
  console.log(formatTargets(rows, options.concurrencies));
  console.log('');
  console.log(formatMemory(memory));
  console.log('');
  if (forwarding && options.sessions > 0) {
    console.error(`bench: portcullis holding ${options.sessions} upstream sessions`);
    console.log(formatSessionsMemory(await measureSessionsMemory(options.sessions)));
    console.log('');
  }
  if (options.targets.includes('portcullis')) {
    console.error('bench: timing portcullis start to ready');
    const servers = startupServers();
    const samples = await measureStartup(
      5,
      servers.map((s) => s.server),
    );
    for (const [index, { name }] of servers.entries()) {
      console.log(formatStartup(samples[index]!, name));
      console.log('');
    }
  }
  console.log(
    [
      ...formatContext(options, load, performance.now() - started),
      ...notes.map((note) => `- ${note}`),
    ].join('\n'),
  );
}

await main(process.argv.slice(2));
