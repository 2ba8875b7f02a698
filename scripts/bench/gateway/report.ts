/**
 * Medians of the rounds, the table they print as, the ratios against the
 * baselines of the same run, and resident memory (the targets Portcullis is
 * held to are in ./portcullis-targets.ts).
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
/** The forwarding rows, in front of the lean upstream MCP server. */
export const MCP_DIRECT = 'mcp-direct';
export const MCP_REVERSE_PROXY = 'mcp-reverse-proxy';
export const MCP_HUB = 'mcp-hub';
export const PORTCULLIS_FORWARDING = 'portcullis-forwarding';

export interface CellRounds {
  target: string;
  /** What it stands in front of: the REST upstream or the lean upstream MCP server. */
  upstream: 'rest' | 'mcp';
  mode: 'mcp' | 'http';
  concurrency: number;
  rounds: CellResult[];
  /** Rounds that could not run at all (sessions refused, say), with the reason. */
  failures: string[];
}

export interface CellSummary {
  target: string;
  upstream: 'rest' | 'mcp';
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
    upstream: cell.upstream,
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

export function find(
  rows: CellSummary[],
  target: string,
  concurrency: number,
): CellSummary | undefined {
  return rows.find((row) => row.target === target && row.concurrency === concurrency);
}

export function ratio(a: number | undefined, b: number | undefined): number | undefined {
  return a !== undefined && b !== undefined && b > 0 ? a / b : undefined;
}

export const times = (value: number | undefined) =>
  value === undefined ? '—' : `${value.toFixed(2)}×`;
export const ms = (value: number | undefined) =>
  value === undefined ? '—' : `${value.toFixed(value < 10 ? 2 : 1)} ms`;
export const rate = (value: number | undefined) =>
  value === undefined ? '—' : Math.round(value).toLocaleString('en-US');

/** The row a row is compared with: the forwarding rows' is mcp-direct. */
function baseOf(row: CellSummary): string {
  if (row.upstream === 'mcp') return MCP_DIRECT;
  return row.mode === 'mcp' ? LEAN_REFERENCE : UPSTREAM_DIRECT;
}

/** Per configuration × concurrency, each against its base (see baseOf). */
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
    const base = find(rows, baseOf(row), row.concurrency);
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
