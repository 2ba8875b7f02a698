/** Medians, ratios and verdicts of the benchmark rows, and the table they print as. */
import type { ProcessRun } from './measure-process.ts';

/** What a row must meet: a ratio of medians (ours / theirs), an absolute time, a peak RSS. */
export interface Target {
  maxRatio?: number;
  maxOursMs?: number;
  maxOursRssMb?: number;
}

export interface RowResult {
  comparison: string;
  document: string;
  ours: ProcessRun[];
  /** Empty when the row has no other side (an absolute target). */
  theirs: ProcessRun[];
  target: Target;
}

export interface RowFigures {
  oursMs: number | undefined;
  theirsMs: number | undefined;
  ratio: number | undefined;
  oursRssMb: number | undefined;
  theirsRssMb: number | undefined;
  /** `info` for a row without a target. */
  verdict: 'pass' | 'FAIL' | 'n/a' | 'info';
  failures: string[];
}

export function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function rowFigures(row: RowResult): RowFigures {
  const succeeded = (runs: ProcessRun[]) => runs.filter((r) => r.exitCode === 0);
  const ours = succeeded(row.ours);
  const theirs = succeeded(row.theirs);
  const failures = [
    ...describeFailures('ours', row.ours),
    ...describeFailures('theirs', row.theirs),
  ];
  const oursMs = median(ours.map((r) => r.wallMs));
  const theirsMs = median(theirs.map((r) => r.wallMs));
  const oursRssMb = median(ours.map((r) => r.peakRssMb));
  const theirsRssMb = median(theirs.map((r) => r.peakRssMb));
  const ratio =
    oursMs !== undefined && theirsMs !== undefined && theirsMs > 0 ? oursMs / theirsMs : undefined;
  const { maxRatio, maxOursMs, maxOursRssMb } = row.target;
  const checks = [
    maxRatio === undefined ? undefined : ratio !== undefined && ratio <= maxRatio,
    maxOursMs === undefined ? undefined : oursMs !== undefined && oursMs <= maxOursMs,
    maxOursRssMb === undefined ? undefined : oursRssMb !== undefined && oursRssMb <= maxOursRssMb,
  ].filter((c): c is boolean => c !== undefined);
  const measured = failures.length === 0 && oursMs !== undefined;
  const verdict = !measured
    ? 'n/a'
    : checks.length === 0
      ? 'info'
      : checks.every(Boolean)
        ? 'pass'
        : 'FAIL';
  return { oursMs, theirsMs, ratio, oursRssMb, theirsRssMb, verdict, failures };
}

function describeFailures(side: string, runs: ProcessRun[]): string[] {
  return runs
    .filter((r) => r.exitCode !== 0)
    .map(
      (r) =>
        `${side} exited with ${r.exitCode}: ${r.outputTail.trim().split('\n').slice(-3).join(' | ')}`,
    );
}

export function formatTarget(target: Target): string {
  return (
    [
      target.maxRatio === undefined ? undefined : `≤ ${target.maxRatio.toFixed(1)}×`,
      target.maxOursMs === undefined ? undefined : `≤ ${target.maxOursMs / 1000} s`,
      target.maxOursRssMb === undefined ? undefined : `≤ ${target.maxOursRssMb / 1024} GB RSS`,
    ]
      .filter(Boolean)
      .join(', ') || '—'
  );
}

const VERDICTS: Record<RowFigures['verdict'], string> = {
  pass: '✓ pass',
  FAIL: '✗ FAIL',
  'n/a': '? n/a',
  info: '(info)',
};

export function formatTable(rows: RowResult[]): string {
  const seconds = (ms: number | undefined) =>
    ms === undefined ? '—' : `${(ms / 1000).toFixed(2)} s`;
  const megabytes = (mb: number | undefined) => (mb === undefined ? '—' : `${Math.round(mb)} MB`);
  const header = [
    'comparison',
    'document',
    'runs',
    'ours',
    'theirs',
    'ratio',
    'target',
    'verdict',
    'ours RSS',
    'theirs RSS',
  ];
  const cells = rows.map((row) => {
    const f = rowFigures(row);
    return [
      row.comparison,
      row.document,
      row.theirs.length > 0 ? `${row.ours.length}+${row.theirs.length}` : String(row.ours.length),
      seconds(f.oursMs),
      seconds(f.theirsMs),
      f.ratio === undefined ? '—' : `${f.ratio.toFixed(2)}×`,
      formatTarget(row.target),
      VERDICTS[f.verdict],
      megabytes(f.oursRssMb),
      megabytes(f.theirsRssMb),
    ];
  });
  return markdownTable(header, cells);
}

/** A Markdown table with its columns padded to line up in a terminal. */
export function markdownTable(header: string[], cells: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (values: string[]) =>
    `| ${values.map((v, i) => v.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...cells.map(line),
  ].join('\n');
}

/** `ours wrote 3.3 MB, theirs 1.3 MB per run`, or nothing for a row that writes elsewhere. */
export function formatOutputs(row: RowResult): string | undefined {
  const written = (runs: ProcessRun[]) => median(runs.map((r) => r.outputBytes ?? 0));
  const [ours, theirs] = [written(row.ours), written(row.theirs)];
  if (!ours && !theirs) return undefined;
  const mb = (bytes: number | undefined) => `${((bytes ?? 0) / 1024 / 1024).toFixed(1)} MB`;
  return `${row.comparison}, ${row.document}: ours wrote ${mb(ours)}, theirs ${mb(theirs)} per run`;
}
