/**
 * Medians of the rounds, the table they print as, the ratios against the
 * baselines of the same run, and the targets Portcullis is held to.
 */
import { markdownTable, median } from '../bench-table.ts';
import type { CellResult } from './load/load-cell.ts';
import type { ResidentMemory } from './server-child.ts';

export const LEAN_REFERENCE = 'lean-reference';
export const UPSTREAM_DIRECT = 'upstream-direct';
export const IVOTOBY = 'ivotoby-openapi-mcp-server';
export const PORTCULLIS = 'portcullis';
export const PORTCULLIS_MODERN = 'portcullis-2026';
/** The same server and call, the agent holding an OAuth access token instead of a key. */
export const PORTCULLIS_OAUTH = 'portcullis-oauth';

export interface CellRounds {
  target: string;
  mode: 'mcp' | 'http';
  concurrency: number;
  rounds: CellResult[];
  /** Rounds that could not run at all (sessions refused, say), with the reason. */
  failures: string[];
}

export interface CellSummary {
  target: string;
  mode: 'mcp' | 'http';
  concurrency: number;
  requestsPerSecond: number | undefined;
  p50Ms: number | undefined;
  p99Ms: number | undefined;
  cpuMsPerCall: number | undefined;
  errors: number;
  calls: number;
  rounds: number;
  firstError: string | undefined;
}

export function summarize(cell: CellRounds): CellSummary {
  const defined = (values: (number | undefined)[]) =>
    values.filter((v): v is number => v !== undefined);
  const counted = cell.rounds.filter((round) => round.ok > 0);
  return {
    target: cell.target,
    mode: cell.mode,
    concurrency: cell.concurrency,
    requestsPerSecond: median(counted.map((r) => r.requestsPerSecond)),
    p50Ms: median(defined(counted.map((r) => r.p50Ms))),
    p99Ms: median(defined(counted.map((r) => r.p99Ms))),
    cpuMsPerCall: median(defined(counted.map((r) => r.cpuMsPerCall))),
    errors: cell.rounds.reduce((sum, r) => sum + r.errors, 0),
    calls: cell.rounds.reduce((sum, r) => sum + r.ok + r.errors, 0),
    rounds: counted.length,
    firstError: cell.rounds.find((r) => r.firstError)?.firstError ?? cell.failures[0],
  };
}

function find(rows: CellSummary[], target: string, concurrency: number): CellSummary | undefined {
  return rows.find((row) => row.target === target && row.concurrency === concurrency);
}

function ratio(a: number | undefined, b: number | undefined): number | undefined {
  return a !== undefined && b !== undefined && b > 0 ? a / b : undefined;
}

const times = (value: number | undefined) => (value === undefined ? '—' : `${value.toFixed(2)}×`);
const ms = (value: number | undefined) =>
  value === undefined ? '—' : `${value.toFixed(value < 10 ? 2 : 1)} ms`;
const rate = (value: number | undefined) =>
  value === undefined ? '—' : Math.round(value).toLocaleString('en-US');

/** Per configuration × concurrency; MCP rows against lean-reference, http rows against upstream-direct. */
export function formatResults(rows: CellSummary[]): string {
  const header = [
    'configuration',
    'c',
    'req/s',
    'p50',
    'p99',
    'server CPU/call',
    'errors',
    'rounds',
    'req/s vs base',
    'p50 vs base',
  ];
  const cells = rows.map((row) => {
    const base = find(rows, row.mode === 'mcp' ? LEAN_REFERENCE : UPSTREAM_DIRECT, row.concurrency);
    const isBase = base === row;
    return [
      `${row.target}${row.mode === 'http' ? ' (http)' : ''}`,
      String(row.concurrency),
      rate(row.requestsPerSecond),
      ms(row.p50Ms),
      ms(row.p99Ms),
      row.cpuMsPerCall === undefined ? '—' : `${Math.round(row.cpuMsPerCall * 1000)} µs`,
      row.errors === 0 ? '0' : `${row.errors} of ${row.calls}`,
      String(row.rounds),
      isBase ? 'base' : times(ratio(row.requestsPerSecond, base?.requestsPerSecond)),
      isBase ? 'base' : times(ratio(row.p50Ms, base?.p50Ms)),
    ];
  });
  return markdownTable(header, cells);
}

interface TargetCheck {
  label: string;
  concurrency: number;
  ours: number | undefined;
  theirs: number | undefined;
  /** `min`: ours/theirs must be at least `bound`; `max`: at most. */
  kind: 'min' | 'max';
  bound: number;
  unit: 'req/s' | 'ms';
}

/** The targets for Portcullis, each a ratio of medians measured in this run. */
export function formatTargets(rows: CellSummary[], concurrencies: number[]): string {
  const checks: TargetCheck[] = [];
  for (const ours of [PORTCULLIS, PORTCULLIS_MODERN]) {
    // The throughput targets are set at concurrency 16 and 64; at 1 the target is latency.
    for (const concurrency of concurrencies.filter((c) => c >= 16)) {
      const rps = find(rows, ours, concurrency)?.requestsPerSecond;
      if (ours === PORTCULLIS) {
        checks.push({
          label: `${ours} req/s vs ${IVOTOBY}`,
          concurrency,
          ours: rps,
          theirs: find(rows, IVOTOBY, concurrency)?.requestsPerSecond,
          kind: 'min',
          bound: 2,
          unit: 'req/s',
        });
      }
      checks.push({
        label: `${ours} req/s vs ${LEAN_REFERENCE}`,
        concurrency,
        ours: rps,
        theirs: find(rows, LEAN_REFERENCE, concurrency)?.requestsPerSecond,
        kind: 'min',
        bound: 0.6,
        unit: 'req/s',
      });
    }
    if (concurrencies.includes(1)) {
      checks.push({
        label: `${ours} p50 vs ${LEAN_REFERENCE}`,
        concurrency: 1,
        ours: find(rows, ours, 1)?.p50Ms,
        theirs: find(rows, LEAN_REFERENCE, 1)?.p50Ms,
        kind: 'max',
        bound: 1.5,
        unit: 'ms',
      });
    }
  }
  // An access token costs about what a key does: verified once, then remembered.
  for (const concurrency of concurrencies.filter((c) => c === 16)) {
    checks.push({
      label: `${PORTCULLIS_OAUTH} req/s vs ${PORTCULLIS}`,
      concurrency,
      ours: find(rows, PORTCULLIS_OAUTH, concurrency)?.requestsPerSecond,
      theirs: find(rows, PORTCULLIS, concurrency)?.requestsPerSecond,
      kind: 'min',
      bound: 0.9,
      unit: 'req/s',
    });
  }
  // A stateless request costs no more server CPU than a stateful one.
  for (const concurrency of concurrencies) {
    checks.push({
      label: `${PORTCULLIS_MODERN} CPU/call vs ${PORTCULLIS}`,
      concurrency,
      ours: find(rows, PORTCULLIS_MODERN, concurrency)?.cpuMsPerCall,
      theirs: find(rows, PORTCULLIS, concurrency)?.cpuMsPerCall,
      kind: 'max',
      bound: 1,
      unit: 'ms',
    });
  }
  const cells = checks.map((check) => {
    const value = ratio(check.ours, check.theirs);
    const met =
      value === undefined
        ? undefined
        : check.kind === 'min'
          ? value >= check.bound
          : value <= check.bound;
    const show = check.unit === 'ms' ? ms : rate;
    return [
      check.label,
      String(check.concurrency),
      show(check.ours),
      show(check.theirs),
      times(value),
      `${check.kind === 'min' ? '≥' : '≤'} ${check.bound}×`,
      met === undefined ? '? n/a' : met ? '✓ pass' : '✗ FAIL',
    ];
  });
  return markdownTable(['portcullis', 'c', 'ours', 'theirs', 'ratio', 'target', 'verdict'], cells);
}

export interface MemoryRow {
  name: string;
  idle: ResidentMemory | undefined;
  after: ResidentMemory | undefined;
}

export function formatMemory(rows: MemoryRow[]): string {
  const mb = (value: number | undefined) => (value === undefined ? '—' : `${Math.round(value)} MB`);
  return markdownTable(
    ['server process', 'RSS idle', 'RSS after', 'peak RSS'],
    rows.map((row) => [row.name, mb(row.idle?.rssMb), mb(row.after?.rssMb), mb(row.after?.peakMb)]),
  );
}
