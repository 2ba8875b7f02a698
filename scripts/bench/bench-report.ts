/** The text under the benchmark's table: failed runs, what was measured, and on what. */
import { availableParallelism, cpus } from 'node:os';
import { formatOutputs, type RowResult, rowFigures } from './bench-table.ts';

export interface ReportContext {
  warmup: number;
  mirror: string;
  loadAverage: number[];
  totalMs: number;
  notes: string[];
}

export function formatReport(rows: RowResult[], context: ReportContext): string {
  const failures = rows.flatMap((row) =>
    rowFigures(row).failures.map((f) => `- ${row.comparison}, ${row.document}: ${f}`),
  );
  const outputs = rows.map(formatOutputs).filter((line) => line !== undefined);
  const machine = `${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}`;
  return [
    ...(failures.length > 0 ? ['Failed runs (left out of the medians):', ...failures, ''] : []),
    'What was measured:',
    '- Wall time from spawn to exit of a fresh child process per run, process start INCLUDED on both sides',
    '  (Node start; our side runs as bundled by npm run build, plain Node as the npm scripts do). Median of the runs; "runs" is ours+theirs.',
    `- Sides interleaved round by round, the order rotating each round, after ${context.warmup} discarded warm-up round(s).`,
    '- Peak RSS: maxRSS of the largest Node process of the run (worker threads included), reported at exit; median.',
    '- 1. ours = read + loadDocument + planFromDocument + compileDocument (names, input schemas, classification,',
    '     contract hashes) + name check + catalog hash, in memory; 1b. the same plus catalog.json written',
    '     (measured in the same rounds). theirs = openapi-mcp-generator 4.0.1 CLI writing its stdio server',
    '     project (--input <doc> --output <tmp> --force).',
    '- 2. ours = the catalog above + createToolsModule (ts-morph), with createTypes (openapi-typescript) in a worker',
    '     thread as npm run generate does, all written; theirs = loadDocument + openapiTS() (its defaults) written.',
    `- 3. npm run -s generate / npm run -s generate -- --check (npm start included), PORTCULLIS_SPEC_MIRROR = ${context.mirror}.`,
    `- Machine: ${machine}, load average at start ${context.loadAverage.map((l) => l.toFixed(2)).join(' ')}; total ${(context.totalMs / 1000).toFixed(0)} s.`,
    ...context.notes.map((n) => `- ${n}`),
    'Output written per run (median):',
    ...outputs.map((line) => `- ${line}`),
  ].join('\n');
}
