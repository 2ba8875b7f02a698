/**
 * The targets for Portcullis, each from medians measured in this run:
 * a ratio against another configuration (at least, or at most, a bound), or,
 * for the forwarding latency, an absolute difference in ms. A row whose
 * configuration did not run prints `? n/a`.
 */
import { markdownTable } from '../bench-table.ts';
import {
  type CellSummary,
  find,
  IVOTOBY,
  LEAN_REFERENCE,
  MCP_HUB,
  MCP_REVERSE_PROXY,
  ms,
  PORTCULLIS,
  PORTCULLIS_FORWARDING,
  PORTCULLIS_MODERN,
  PORTCULLIS_OAUTH,
  rate,
  ratio,
  times,
} from './report.ts';

interface TargetCheck {
  label: string;
  concurrency: number;
  ours: number | undefined;
  theirs: number | undefined;
  /**
   * `min`: ours/theirs at least `bound`; `max`: at most `bound`;
   * `maxAbove`: ours − theirs at most `bound` (ms).
   */
  kind: 'min' | 'max' | 'maxAbove';
  bound: number;
  unit: 'req/s' | 'ms';
}

type Metric = 'requestsPerSecond' | 'p50Ms' | 'cpuMsPerCall';

/** One check of `ours` against `theirs` on one metric at one concurrency. */
function check(
  rows: CellSummary[],
  [ours, theirs]: [string, string],
  metric: Metric,
  concurrency: number,
  kind: TargetCheck['kind'],
  bound: number,
): TargetCheck {
  const what = { requestsPerSecond: 'req/s', p50Ms: 'p50', cpuMsPerCall: 'CPU/call' }[metric];
  return {
    label: `${ours} ${what} vs ${theirs}`,
    concurrency,
    ours: find(rows, ours, concurrency)?.[metric],
    theirs: find(rows, theirs, concurrency)?.[metric],
    kind,
    bound,
    unit: metric === 'requestsPerSecond' ? 'req/s' : 'ms',
  };
}

/** Portcullis in front of REST: against the peers and the lean hand-written endpoint. */
function compiledChecks(rows: CellSummary[], concurrencies: number[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const ours of [PORTCULLIS, PORTCULLIS_MODERN]) {
    // The throughput targets are set at concurrency 16 and 64; at 1 the target is latency.
    for (const c of concurrencies.filter((c) => c >= 16)) {
      if (ours === PORTCULLIS)
        checks.push(check(rows, [ours, IVOTOBY], 'requestsPerSecond', c, 'min', 2));
      checks.push(check(rows, [ours, LEAN_REFERENCE], 'requestsPerSecond', c, 'min', 0.6));
    }
    if (concurrencies.includes(1))
      checks.push(check(rows, [ours, LEAN_REFERENCE], 'p50Ms', 1, 'max', 1.5));
  }
  // An access token costs about what a key does: verified once, then remembered.
  for (const c of concurrencies.filter((c) => c === 16))
    checks.push(check(rows, [PORTCULLIS_OAUTH, PORTCULLIS], 'requestsPerSecond', c, 'min', 0.9));
  // A stateless request costs no more server CPU than a stateful one.
  for (const c of concurrencies)
    checks.push(check(rows, [PORTCULLIS_MODERN, PORTCULLIS], 'cpuMsPerCall', c, 'max', 1));
  return checks;
}

/** Portcullis forwarding to the lean upstream MCP server: against one bare hop and mcp-hub. */
function forwardingChecks(rows: CellSummary[], concurrencies: number[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const pair = (theirs: string): [string, string] => [PORTCULLIS_FORWARDING, theirs];
  for (const c of concurrencies.filter((c) => c >= 16)) {
    checks.push(check(rows, pair(MCP_REVERSE_PROXY), 'requestsPerSecond', c, 'min', 0.5));
    checks.push(check(rows, pair(MCP_HUB), 'requestsPerSecond', c, 'min', 2.5));
  }
  if (concurrencies.includes(1))
    checks.push(check(rows, pair(MCP_REVERSE_PROXY), 'p50Ms', 1, 'maxAbove', 0.5));
  return checks;
}

function verdict(check: TargetCheck): { shown: string; met: boolean | undefined } {
  if (check.kind === 'maxAbove') {
    const above =
      check.ours !== undefined && check.theirs !== undefined
        ? check.ours - check.theirs
        : undefined;
    const shown = above === undefined ? '—' : `${above >= 0 ? '+' : '−'}${ms(Math.abs(above))}`;
    return { shown, met: above === undefined ? undefined : above <= check.bound };
  }
  const value = ratio(check.ours, check.theirs);
  const met =
    value === undefined
      ? undefined
      : check.kind === 'min'
        ? value >= check.bound
        : value <= check.bound;
  return { shown: times(value), met };
}

export function formatTargets(rows: CellSummary[], concurrencies: number[]): string {
  const checks = [...compiledChecks(rows, concurrencies), ...forwardingChecks(rows, concurrencies)];
  const cells = checks.map((check) => {
    const { shown, met } = verdict(check);
    const show = check.unit === 'ms' ? ms : rate;
    const target =
      check.kind === 'maxAbove'
        ? `≤ +${check.bound} ms`
        : `${check.kind === 'min' ? '≥' : '≤'} ${check.bound}×`;
    return [
      check.label,
      String(check.concurrency),
      show(check.ours),
      show(check.theirs),
      shown,
      target,
      met === undefined ? '? n/a' : met ? '✓ pass' : '✗ FAIL',
    ];
  });
  return markdownTable(
    ['portcullis', 'c', 'ours', 'theirs', 'ratio or difference', 'target', 'verdict'],
    cells,
  );
}
