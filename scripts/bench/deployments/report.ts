/** The tables `bench:deployments` prints, and what they can and cannot show. */
import { markdownTable, median } from '../bench-table.ts';
import type { DeploymentSpec } from './deployment.ts';
import type { TakeCosts } from './limiter-take.ts';
import type { RoundOptions, RoundResult } from './measure-round.ts';

export interface DeploymentsReport {
  specs: DeploymentSpec[];
  /** Per deployment, each round's result; undefined for a round that failed. */
  results: Map<string, Array<RoundResult | undefined>>;
  /** Gateway CPU with no calls, ms per s, per deployment. */
  idle: Map<string, number>;
  takes: TakeCosts | undefined;
  /** What the traced deployments sent the OTLP receiver. */
  spanKiB: number;
  options: RoundOptions & { rounds: number; warmupRounds: number };
  /** The 1-minute load average, sampled every 5 s from start to end. */
  loads: number[];
  machine: string;
  totalSeconds: number;
}

/**
 * The targets of what a feature switched on may add to a governed call's
 * gateway CPU: the rate limiter under 3%, tracing with nothing sampled
 * under 5%, fully sampled under 15%.
 */
function targetOf(spec: DeploymentSpec): number {
  if (spec.tracing === 'sampled off') return 1.05;
  if (spec.tracing === 'full') return 1.15;
  return 1.03;
}

/** The deployment a switched-on one is compared with: the same without it. */
function baseOf(spec: DeploymentSpec): string {
  return spec.tracing === undefined ? spec.name.replace(/\+limits$/, '') : 'sqlite';
}

const int = (value: number) =>
  Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '—';
const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)} ms` : '—');
const ratio = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '—');
/** `median (min–max)` of per-round values. */
const withRange = (values: number[], format: (v: number) => string) =>
  `${format(median(values) ?? Number.NaN)} (${format(Math.min(...values))}–${format(Math.max(...values))})`;

/** Each round's value of `of` for `name` over the same round's for `base`: paired, so a noisy minute cancels. */
function roundRatios(
  report: DeploymentsReport,
  name: string,
  base: string,
  of: (r: RoundResult, name: string) => number,
): number[] {
  const [ours, theirs] = [report.results.get(name)!, report.results.get(base)!];
  return ours.flatMap((r, i) => {
    const other = theirs[i];
    return r && other ? [of(r, name) / of(other, base)] : [];
  });
}

function succeeded(report: DeploymentsReport, name: string): RoundResult[] {
  return report.results.get(name)!.filter((r): r is RoundResult => r !== undefined);
}

/** A round's gateway CPU per call less what the processes spend idle over the same time. */
function netOfIdle(report: DeploymentsReport, name: string, round: RoundResult): number {
  const idleUsPerSecond = (report.idle.get(name) ?? 0) * 1000;
  return round.cpu.gateway - idleUsPerSecond / round.callsPerSecond;
}

function figuresTable(report: DeploymentsReport): string {
  return markdownTable(
    [
      'deployment',
      'calls/s (rounds)',
      'p50',
      'p95',
      'gateway CPU/call (rounds)',
      'idle gateway',
      'net of idle',
      'nginx',
      'PostgreSQL',
      'Redis server',
      'calls/round',
      'errors',
      'failed rounds',
    ],
    report.specs.map((spec) => {
      const rounds = succeeded(report, spec.name);
      const med = (of: (r: RoundResult) => number) => median(rounds.map(of)) ?? Number.NaN;
      const us = (value: number) => (value > 0 ? `${int(value)} µs` : '—');
      return [
        spec.name,
        withRange(
          rounds.map((r) => r.callsPerSecond),
          int,
        ),
        ms(med((r) => r.p50Ms)),
        ms(med((r) => r.p95Ms)),
        withRange(
          rounds.map((r) => r.cpu.gateway),
          (v) => `${int(v)} µs`,
        ),
        `${(report.idle.get(spec.name) ?? Number.NaN).toFixed(1)} ms/s`,
        `${int(med((r) => netOfIdle(report, spec.name, r)))} µs`,
        us(med((r) => r.cpu.nginx)),
        us(med((r) => r.cpu.postgres)),
        `${int(med((r) => r.cpu.redis))} µs`,
        int(med((r) => r.ok)),
        String(rounds.reduce((sum, r) => sum + r.errors, 0)),
        String(report.results.get(spec.name)!.length - rounds.length),
      ];
    }),
  );
}

function againstSqlite(report: DeploymentsReport): string | undefined {
  const rows = report.specs
    .filter((spec) => !spec.limits && spec.tracing === undefined && spec.name !== 'sqlite')
    .map((spec) => {
      const r = (of: (x: RoundResult, name: string) => number) =>
        withRange(roundRatios(report, spec.name, 'sqlite', of), ratio);
      const added = (of: (x: RoundResult) => number) => {
        const [ours, base] = [report.results.get(spec.name)!, report.results.get('sqlite')!];
        const differences = ours.flatMap((x, i) => {
          const other = base[i];
          return x && other ? [of(x) - of(other)] : [];
        });
        return median(differences) ?? Number.NaN;
      };
      const serving = (x: RoundResult) =>
        x.cpu.gateway + x.cpu.nginx + x.cpu.postgres + Math.max(0, x.cpu.redis);
      return [
        spec.name,
        r((x) => x.callsPerSecond),
        r((x) => x.p50Ms),
        r((x) => x.p95Ms),
        r((x) => x.cpu.gateway),
        r((x, name) => netOfIdle(report, name, x)),
        `${added((x) => x.p50Ms) >= 0 ? '+' : ''}${ms(added((x) => x.p50Ms))}`,
        `${int(added((x) => x.cpu.gateway))} µs`,
        `${int(added(serving))} µs`,
      ];
    });
  if (rows.length === 0) return undefined;
  return markdownTable(
    [
      'against sqlite, same run',
      'calls/s',
      'p50',
      'p95',
      'gateway CPU/call',
      'net of idle',
      'p50 added',
      'gateway CPU added',
      'all serving CPU added',
    ],
    rows,
  );
}

/** Each switched-on deployment (limits, tracing) against the same without it: gateway CPU per call, paired by round. */
function switchedOnTable(report: DeploymentsReport): string | undefined {
  const specs = report.specs.filter(
    (spec) => (spec.limits || spec.tracing !== undefined) && report.results.has(baseOf(spec)),
  );
  if (specs.length === 0) return undefined;
  const rows = specs.map((spec) => {
    const base = baseOf(spec);
    const target = targetOf(spec);
    const ratios = roundRatios(report, spec.name, base, (x) => x.cpu.gateway);
    const middle = median(ratios) ?? Number.NaN;
    const [low, high] = [Math.min(...ratios), Math.max(...ratios)];
    const verdict =
      ratios.length === 0
        ? 'no paired round'
        : middle <= target
          ? 'pass'
          : low <= target
            ? 'not shown (rounds straddle it)'
            : 'FAIL';
    return [
      `${spec.name} / ${base}`,
      ratio(middle),
      `${ratio(low)}–${ratio(high)}`,
      `≤ ${target}×`,
      verdict,
    ];
  });
  const takes = report.takes;
  const base = median(succeeded(report, 'sqlite').map((r) => r.cpu.gateway)) ?? Number.NaN;
  const share = (us: number) => `${((us / base) * 100).toFixed(1)}% of sqlite's ${int(base)} µs`;
  const traced = specs.some((spec) => spec.tracing !== undefined);
  return [
    markdownTable(
      ['switched on (gateway CPU per call)', 'median of rounds', 'rounds', 'target', 'verdict'],
      rows,
    ),
    ...(takes
      ? [
          '',
          `The rate limiter's take alone (two buckets), CPU in this process: ${takes.memory.toFixed(1)} µs in-process (${share(takes.memory)}); on Redis one EVALSHA, ${takes.redisAlone.toFixed(1)} µs with one in flight (${share(takes.redisAlone)}), ${takes.redisLoaded.toFixed(1)} µs with ${takes.inFlight} in flight (${share(takes.redisLoaded)}).`,
        ]
      : []),
    ...(traced
      ? [
          '',
          `Spans received by the OTLP receiver: ${int(report.spanKiB)} KiB (the fully sampled deployment's export; sampled off sends none).`,
        ]
      : []),
  ].join('\n');
}

export function formatDeployments(report: DeploymentsReport): string {
  const { options } = report;
  const switchedOn = switchedOnTable(report);
  const compared = againstSqlite(report);
  return [
    figuresTable(report),
    '',
    ...(compared ? [compared, ''] : []),
    ...(switchedOn ? [switchedOn, ''] : []),
    'What was measured:',
    `- A governed tools/call (agent key, grant, policy, argument validation, audit) through /mcp of the built gateway (dist/server.mjs), forwarded to a real SDK MCP server on loopback (2026-07-28 stateless); the agent on the ${options.wire === 'legacy' ? '2025-06-18 wire, one session per loop (on the replicas, held in Redis and continued on either one)' : '2026-07-28 wire, no session'}; ${options.concurrency} loops, ${options.warmupMs / 1000} s warm-up and ${options.durationMs / 1000} s counted per deployment and round; ${options.warmupRounds} warm-up round(s) thrown away, then ${options.rounds} rounds interleaved, the order rotating; medians over rounds and (min–max) of the rounds.`,
    '- CPU per call: user + system time over the counted window, from /proc, of the gateway process(es), nginx (master and worker), the PostgreSQL backends of that deployment (by application_name); Redis: the whole server (INFO cpu), other users of it included. Each Redis deployment has a database index of its own, emptied after; channels are server-wide.',
    "- Ratios against sqlite are the medians of each round's own ratio (paired within a round), with the rounds' range: a ratio whose range straddles 1 is no difference this run can show.",
    '- limits on: an agent and a connection limit of 1,000,000 a minute (every call takes a token from both buckets, none is refused): in-process on SQLite, one EVALSHA on Redis with PostgreSQL.',
    '- tracing: the OpenTelemetry Node SDK started by the OTEL_* variables, OTLP/HTTP protobuf to a receiver in the benchmark process; sampled off is parentbased_traceidratio 0 (the request span made, its trace context passed upstream, nothing recorded), full is always_on (the request, governance, upstream and audit spans recorded and exported).',
    '- Two cores: the load generator, nginx, PostgreSQL, Redis, the upstream and every replica share them, so two replicas cannot show scale-out (they contend for the same cores as one replica; a throughput ratio near or under 1 is expected); what this run shows is what each deployment costs per call (CPU, latency at a fixed concurrency) and that the shared path works under load. Scale-out needs the replicas on cores of their own.',
    `- Machine: ${report.machine}; 1-minute load average ${Math.min(...report.loads).toFixed(2)}–${Math.max(...report.loads).toFixed(2)} during the run (start ${report.loads[0]!.toFixed(2)}, end ${report.loads.at(-1)!.toFixed(2)}); total ${Math.round(report.totalSeconds)} s.`,
  ].join('\n');
}
