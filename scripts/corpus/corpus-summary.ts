/** The corpus run's totals, built one document check at a time, and their text form. */

import type {
  Classification,
  ClassificationRule,
  InventoryReason,
} from '../../generators/catalog/format.ts';
import { byCodeUnit } from '../../generators/code-unit-order.ts';
import type { DocumentCheck, NotCallable, SchemaFailure } from './check-document.ts';

export interface CorpusSummary {
  folder: string;
  workers: number;
  documents: number;
  compiled: number;
  /** `CompileError` code → documents the compiler refused with it. */
  rejected: Record<string, number>;
  rejections: Array<{ file: string; code: string; message: string }>;
  collisions: Array<{ file: string; message: string }>;
  operations: number;
  actions: number;
  inventory: Partial<Record<InventoryReason, number>>;
  classification: Record<Classification, number>;
  rules: Partial<Record<ClassificationRule, number>>;
  /** Actions whose sampled arguments pass ajv and build a request. */
  callable: number;
  notCallable: Record<string, number>;
  notCallableExamples: Array<NotCallable & { file: string }>;
  schemasCompiled: number;
  schemasFailed: number;
  schemaFailures: Array<SchemaFailure & { file: string }>;
  crashes: Array<{ file: string; stage: string; stack: string }>;
  /** Documents whose check never finished: the worker ran out of memory or time. */
  unfinished: Array<{ file: string; reason: string }>;
  /** Present when the run validated documents with redocly. */
  structural?: { documentsWithErrors: number; errors: number };
  wallMs: number;
}

export function createSummary(folder: string, workers: number, validate: boolean): CorpusSummary {
  return {
    folder,
    workers,
    documents: 0,
    compiled: 0,
    rejected: {},
    rejections: [],
    collisions: [],
    operations: 0,
    actions: 0,
    inventory: {},
    classification: { read: 0, write: 0, destructive: 0 },
    rules: {},
    callable: 0,
    notCallable: {},
    notCallableExamples: [],
    schemasCompiled: 0,
    schemasFailed: 0,
    schemaFailures: [],
    crashes: [],
    unfinished: [],
    ...(validate ? { structural: { documentsWithErrors: 0, errors: 0 } } : {}),
    wallMs: 0,
  };
}

export function addCheck(summary: CorpusSummary, check: DocumentCheck): void {
  summary.documents += 1;
  if (check.crash?.stage === 'worker')
    summary.unfinished.push({ file: check.file, reason: check.crash.stack });
  else if (check.crash) summary.crashes.push({ file: check.file, ...check.crash });
  else if (check.rejected) {
    const { code, message } = check.rejected;
    summary.rejected[code] = (summary.rejected[code] ?? 0) + 1;
    summary.rejections.push({ file: check.file, code, message });
  } else summary.compiled += 1;
  if (check.collision) summary.collisions.push({ file: check.file, message: check.collision });
  summary.operations += check.operations;
  summary.actions += check.actions;
  for (const [reason, count] of Object.entries(check.inventory) as Array<[InventoryReason, number]>)
    summary.inventory[reason] = (summary.inventory[reason] ?? 0) + count;
  for (const key of ['read', 'write', 'destructive'] as const)
    summary.classification[key] += check.classification[key];
  for (const [rule, count] of Object.entries(check.rules) as Array<[ClassificationRule, number]>)
    summary.rules[rule] = (summary.rules[rule] ?? 0) + count;
  summary.callable += check.callable;
  for (const [reason, count] of Object.entries(check.notCallable))
    summary.notCallable[reason] = (summary.notCallable[reason] ?? 0) + count;
  for (const example of check.notCallableExamples)
    summary.notCallableExamples.push({ file: check.file, ...example });
  summary.schemasCompiled += check.schemasCompiled;
  summary.schemasFailed += check.schemasFailed;
  for (const failure of check.schemaFailures)
    summary.schemaFailures.push({ file: check.file, ...failure });
  if (summary.structural && check.structuralErrors !== undefined) {
    summary.structural.errors += check.structuralErrors;
    if (check.structuralErrors > 0) summary.structural.documentsWithErrors += 1;
  }
}

/** Lists in file order, so two runs over the same corpus print the same summary. */
export function sortSummary(summary: CorpusSummary): void {
  const byFile = (a: { file: string }, b: { file: string }) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
  summary.rejections.sort(byFile);
  summary.collisions.sort(byFile);
  summary.schemaFailures.sort(byFile);
  summary.notCallableExamples.sort(byFile);
  summary.crashes.sort(byFile);
  summary.unfinished.sort(byFile);
}

const LISTED = 20;

export function formatSummary(summary: CorpusSummary): string {
  const n = (value: number) => value.toLocaleString('en-US');
  const counts = (record: Record<string, number | undefined>) =>
    Object.entries(record)
      .sort(([a], [b]) => byCodeUnit(a, b))
      .map(([key, value]) => `${key} ${n(value ?? 0)}`)
      .join(', ') || 'none';
  const inventoried = Object.values(summary.inventory).reduce((a, b) => a + (b ?? 0), 0);
  const { read, write, destructive } = summary.classification;
  const lines = [
    `corpus ${summary.folder} (${summary.workers} workers)`,
    `  documents            ${n(summary.documents)}`,
    `    compiled           ${n(summary.compiled)}`,
    `    refused            ${n(summary.rejections.length)} (${counts(summary.rejected)})`,
    `    name collisions    ${n(summary.collisions.length)} documents`,
    ...(summary.structural
      ? [
          `    redocly errors     ${n(summary.structural.documentsWithErrors)} documents, ${n(summary.structural.errors)} errors`,
        ]
      : []),
    `  operations           ${n(summary.operations)}`,
    `    advertised         ${n(summary.actions)} (read ${n(read)}, write ${n(write)}, destructive ${n(destructive)})`,
    `    inventoried        ${n(inventoried)} (${counts(summary.inventory)})`,
    `    by rule            ${counts(summary.rules)}`,
    `  input schemas (ajv)  ${n(summary.schemasCompiled)} compiled, ${n(summary.schemasFailed)} failed`,
    `  callable (sampled)   ${n(summary.callable)} of ${n(summary.schemasCompiled)} (${percent(summary.callable, summary.schemasCompiled)}); not: ${counts(summary.notCallable)}`,
    `  crashes              ${n(summary.crashes.length)}`,
    `  unfinished           ${n(summary.unfinished.length)} (out of memory or time)`,
    `  wall time            ${formatDuration(summary.wallMs)}`,
  ];
  if (summary.collisions.length > 0) {
    lines.push('', `tool-name collisions (first ${LISTED}):`);
    for (const c of summary.collisions.slice(0, LISTED)) lines.push(`  ${c.file}: ${c.message}`);
  }
  if (summary.schemaFailures.length > 0) {
    lines.push('', 'input schemas ajv does not compile (a compiler bug):');
    for (const f of summary.schemaFailures.slice(0, LISTED))
      lines.push(`  ${f.file}#${f.pointer} (${f.action}): ${f.message}`);
  }
  if (summary.notCallableExamples.length > 0) {
    lines.push('', `actions not callable with sampled arguments (first ${LISTED}):`);
    for (const e of summary.notCallableExamples.slice(0, LISTED))
      lines.push(`  ${e.file}#${e.pointer} (${e.action}) [${e.reason}]: ${e.message}`);
  }
  if (summary.crashes.length > 0) {
    lines.push('', 'crashes (a compiler bug):');
    for (const c of summary.crashes) lines.push(`  ${c.file} [${c.stage}]`, indent(c.stack, 4));
  }
  if (summary.unfinished.length > 0) {
    lines.push('', 'unfinished checks (raise --heap-mb or --timeout):');
    for (const u of summary.unfinished) lines.push(`  ${u.file}: ${u.reason.split('\n')[0]}`);
  }
  return lines.join('\n');
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '0%' : `${((100 * part) / whole).toFixed(2)}%`;
}

export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60
    ? `${(ms / 1000).toFixed(1)} s`
    : `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

function indent(text: string, spaces: number): string {
  return text
    .split('\n')
    .map((line) => `${' '.repeat(spaces)}${line}`)
    .join('\n');
}
