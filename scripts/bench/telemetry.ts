/**
 * What telemetry costs per governed call, in CPU (never a test): the real
 * gateway answering `tools/call` through its MCP endpoint in a child process
 * (./telemetry/governed-calls.ts), with tracing
 *
 * - `off`: no `OTEL_*` variable (the SDK not even loaded), the baseline;
 * - `on, sampled off`: the SDK started, `OTEL_TRACES_SAMPLER=parentbased_traceidratio`
 *   with `_ARG=0` (spans made, none recorded or exported);
 * - `on, always_off`: the same with `OTEL_TRACES_SAMPLER=always_off`;
 * - `on, fully sampled`: `always_on`, every span exported over OTLP/HTTP
 *   (protobuf, the default) to a receiver in this process (its CPU is not
 *   the child's; the child's own export, serialising and sending, is);
 * - `on, fully sampled, OTLP JSON`: the same as `http/json`, for comparison.
 *
 * Modes run in fresh children, interleaved round by round with the order
 * rotating, so a noisy minute slows them all. What counts is the child's
 * CPU per call (all its threads, the span exporter's included; the spans
 * still buffered are exported on the clock). Each mode's ratio is taken to
 * the `off` child of the same round, and the figure is the median of those
 * paired ratios, with their spread (min–max) and the ratio of the best
 * rounds (min over min): on a shared machine other processes inflate CPU
 * time too (targets: under 1.05 sampled off, under 1.15 fully sampled). The
 * load average is printed at the start and the end; above the core count,
 * the figures say little. Spans the batch processor dropped (its queue
 * full) are counted: a dropped span is never exported, so its cost is not
 * in the figure. Metrics are always on: their cost is the Prometheus
 * adapter's work per call (one `callFinished`, one `auditWritten`), timed
 * here, over the `off` figure.
 *
 *   npm run bench:telemetry -- [--duration 4] [--warmup 2] [--rounds 3] [--concurrency 4]
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PrometheusMetrics } from '../../runtime/adapters/metrics/prometheus-metrics.ts';
import type { CallRecord } from '../../runtime/core/ports/telemetry.ts';
import { markdownTable, median } from './bench-table.ts';
import { ROOT } from './gateway/paths.ts';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '4' },
  },
});
const durationMs = Number(values.duration) * 1000;
const warmupMs = Number(values.warmup) * 1000;
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);

interface Mode {
  key: string;
  env: (otlp: string) => Record<string, string>;
  maxRatio?: number;
}

const traced = (otlp: string, sampler: Record<string, string>) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
  OTEL_SERVICE_NAME: 'portcullis-bench',
  ...sampler,
});

const MODES: Mode[] = [
  { key: 'off', env: () => ({}) },
  {
    key: 'on, sampled off (parentbased_traceidratio 0)',
    env: (otlp) =>
      traced(otlp, {
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0',
      }),
    maxRatio: 1.05,
  },
  {
    key: 'on, always_off',
    env: (otlp) => traced(otlp, { OTEL_TRACES_SAMPLER: 'always_off' }),
    maxRatio: 1.05,
  },
  {
    key: 'on, fully sampled (always_on)',
    env: (otlp) => traced(otlp, { OTEL_TRACES_SAMPLER: 'always_on' }),
    maxRatio: 1.15,
  },
  {
    key: 'on, fully sampled, OTLP JSON',
    env: (otlp) =>
      traced(otlp, {
        OTEL_TRACES_SAMPLER: 'always_on',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      }),
  },
];
const loadAtStart = loadavg()[0]!;

const BODY = Buffer.from(
  JSON.stringify({ user: 'usr_7Hq2kLm9', plan: 'team', quotas: { seats: { limit: 25 } } }),
);

async function listen(server: Server): Promise<string> {
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let spansBytes = 0;
const upstream = createServer((request, response) => {
  request.resume();
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': BODY.length });
  response.end(BODY);
});
const receiver = createServer((request, response) => {
  request.on('data', (chunk: Buffer) => {
    spansBytes += chunk.length;
  });
  request.on('end', () =>
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
  );
});
const upstreamUrl = await listen(upstream);
const otlpUrl = await listen(receiver);

interface ChildRun {
  calls: number;
  cpuUs: number;
  /** Spans the batch processor dropped, as its warnings said. */
  dropped: number;
}

function runChild(mode: Mode): Promise<ChildRun> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')),
  );
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'scripts', 'bench', 'telemetry', 'governed-calls.ts'),
      upstreamUrl,
      String(concurrency),
      String(durationMs),
      String(warmupMs),
    ],
    {
      cwd: ROOT,
      env: { ...inherited, PORTCULLIS_LOG_LEVEL: 'silent', ...mode.env(otlpUrl) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    child.once('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{"calls"'));
      if (!line) reject(new Error(`${mode.key}: exit ${code}: ${(err || out).slice(-1500)}`));
      else resolve(JSON.parse(line) as ChildRun);
    });
  });
}

const runs = new Map<string, ChildRun[]>(MODES.map((mode) => [mode.key, []]));
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < MODES.length; i++) {
    const mode = MODES[(i + round) % MODES.length]!;
    const run = await runChild(mode);
    runs.get(mode.key)!.push(run);
    console.error(
      `bench: telemetry ${mode.key} ${round + 1}/${rounds}: ${run.calls} calls, ${(run.cpuUs / run.calls).toFixed(1)} µs CPU/call, load ${loadavg()[0]!.toFixed(1)}`,
    );
  }
}

const perCall = (run: ChildRun) => run.cpuUs / run.calls;
const offRuns = runs.get('off')!;
const baseline = median(offRuns.map(perCall))!;
/** Each round's ratio to the `off` child of the same round. */
const pairedRatios = (key: string) =>
  runs.get(key)!.map((run, round) => perCall(run) / perCall(offRuns[round]!));
const best = (key: string) => Math.min(...runs.get(key)!.map(perCall));

// Metrics: the adapter's work per call, in this process, over many calls.
const metrics = new PrometheusMetrics({ liveSessions: () => 1, connections: async () => [] });
const record: CallRecord = {
  method: 'tools/call',
  connection: 'unikraft',
  actionClass: 'read',
  decision: 'allowed',
  outcome: 'ok',
  reason: null,
  seconds: 0.004,
  upstreamSeconds: 0.002,
};
const METRIC_CALLS = 200_000;
for (let i = 0; i < 20_000; i++) metrics.callFinished(record);
const metricsCpu = process.cpuUsage();
for (let i = 0; i < METRIC_CALLS; i++) {
  metrics.callFinished(record);
  metrics.auditWritten(0.0003);
}
const metricsSpent = process.cpuUsage(metricsCpu);
const metricsUs = (metricsSpent.user + metricsSpent.system) / METRIC_CALLS;
const scrapeCpu = process.cpuUsage();
await metrics.text();
const scrapeSpent = process.cpuUsage(scrapeCpu);

upstream.close();
receiver.close();

const rows = MODES.map((mode) => {
  const us = runs.get(mode.key)!.map(perCall);
  const ratios = pairedRatios(mode.key);
  const ratio = median(ratios)!;
  const verdict =
    mode.maxRatio === undefined
      ? mode.key === 'off'
        ? 'baseline'
        : 'info'
      : ratio <= mode.maxRatio
        ? 'pass'
        : 'FAIL';
  const dropped = runs.get(mode.key)!.reduce((sum, run) => sum + run.dropped, 0);
  return [
    mode.key,
    String(median(runs.get(mode.key)!.map((r) => r.calls))),
    `${median(us)!.toFixed(1)} (${Math.min(...us).toFixed(0)}–${Math.max(...us).toFixed(0)})`,
    `${ratio.toFixed(3)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
    (best(mode.key) / best('off')).toFixed(3),
    dropped === 0 ? '' : String(dropped),
    mode.maxRatio === undefined ? '' : `< ${mode.maxRatio}`,
    verdict,
  ];
});
rows.push([
  'metrics (the adapter per call)',
  '',
  metricsUs.toFixed(2),
  `+${((metricsUs / baseline) * 100).toFixed(2)}%`,
  '',
  '',
  '',
  'info',
]);

const cpu = cpus()[0]?.model ?? 'unknown CPU';
console.log(
  `\n## Telemetry per governed call (${new Date().toISOString().slice(0, 10)}, ${availableParallelism()} × ${cpu}, load ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end; ${rounds} rounds of ${durationMs / 1000} s, ${concurrency} loops, 2025-11-25 wire)\n`,
);
console.log(
  markdownTable(
    [
      'tracing',
      'calls (median)',
      'CPU µs/call (min–max)',
      'ratio to off, paired (min–max)',
      'best / best',
      'spans dropped',
      'target',
      'verdict',
    ],
    rows,
  ),
);
console.log(
  `\nSpans received by the loopback OTLP receiver: ${(spansBytes / 1024).toFixed(0)} KiB. One scrape of /metrics: ${((scrapeSpent.user + scrapeSpent.system) / 1000).toFixed(1)} ms CPU.`,
);
