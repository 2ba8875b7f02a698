/**
 * One document's validation findings as the generate line reports them: what
 * they are, counted by kind, not by redocly's severity. A run that passes has
 * compiled around every one of them, so none of them is an error of the run:
 * Coolify's 192 `nullable` keywords (3.0's, in a 3.1 document) are honoured
 * as `null`, not "192 errors".
 */
import type { Problem } from '../openapi/validate-document.ts';

/** What a finding is, in words. */
export function findingKind(problem: Problem): string {
  if (problem.rule === 'struct' && problem.pointer.endsWith('/nullable')) {
    if (problem.message.includes('not expected here'))
      return 'nullable in OpenAPI 3.1, honoured as null';
    if (problem.message.includes('`type` field must be defined'))
      return 'nullable without a type, honoured as null';
    return 'nullable the schema rules refuse, honoured as null';
  }
  return `${problem.rule} ${problem.severity === 'error' ? 'violation' : 'warning'}`;
}

/**
 * `, 192 spec findings, compiled anyway: 192 × nullable in OpenAPI 3.1, honoured
 * as null (first at #…; --problems lists them)`, or nothing.
 */
export function findingsSummary(problems: readonly Problem[]): string {
  if (problems.length === 0) return '';
  const counts = new Map<string, number>();
  for (const problem of problems) {
    const kind = findingKind(problem);
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  const kinds = [...counts].map(([kind, count]) => `${count} × ${kind}`).join(', ');
  const noun = problems.length === 1 ? 'spec finding' : 'spec findings';
  return `, ${problems.length} ${noun}, compiled anyway: ${kinds} (first at #${problems[0]!.pointer}; --problems lists them)`;
}
