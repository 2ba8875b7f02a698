/**
 * How the command shows review flags: under a heading per flagged item, one
 * line a flag naming its rule, its title, the field and the server's excerpt
 * written inert on that one line (its line breaks and invisible characters
 * as visible escapes), so the flagged text can neither run on as another line
 * nor hide in the terminal.
 */
import type { ReviewFlag } from '../../core/governance/review-flags.ts';
import { inert } from './output.ts';

export function flagLines(flags: readonly ReviewFlag[], indent = '    '): string[] {
  return flags.map(
    (flag) =>
      `${indent}[${flag.rule}] ${flag.title}, in ${inert(flag.field)}: ${inert(flag.excerpt)}`,
  );
}

/** Each flagged item of a listing, with the command that reads its review. */
export function flaggedText(
  rows: ReadonlyArray<{ tool: string; flags?: ReviewFlag[] }>,
  connection: string,
): string {
  const flagged = rows.filter((row) => row.flags !== undefined);
  if (flagged.length === 0) return '';
  return `${flagged
    .map(
      (row) =>
        `${inert(row.tool)} is flagged for review (${row.flags!.length}):\n${flagLines(row.flags!).join('\n')}\n`,
    )
    .join(
      '',
    )}Flags change no decision by themselves; read them before approving (portcullis connection review ${connection}).\n`;
}

/** A flag count for a listing's column. */
export function flagCount(flags: readonly ReviewFlag[] | undefined): string {
  if (flags === undefined) return '';
  return flags.length === 1 ? '1 flag' : `${flags.length} flags`;
}
