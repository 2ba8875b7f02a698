/**
 * How the command shows review flags: under a heading per flagged item, one
 * line a flag naming its rule, its title, the field and the server's excerpt
 * written inert on that one line (its line breaks and invisible characters
 * as visible escapes), so the flagged text can neither run on as another line
 * nor hide in the terminal.
 */
import type { ReviewFlag } from '../../core/governance/review-flags.ts';
import type { AppContract } from '../../core/model/remote.ts';
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

const DIRECTIVES = [
  ['connectDomains', 'connect to'],
  ['resourceDomains', 'load from'],
  ['frameDomains', 'frame'],
  ['baseUriDomains', 'base uri'],
] as const;

/** An MCP App's page, plainly: what it may reach and what it asks for, one line each. */
export function appLines(app: AppContract, indent = '    '): string[] {
  const reaches = DIRECTIVES.flatMap(([key, verb]) => {
    const domains = app.csp[key] ?? [];
    return domains.length === 0 ? [] : [`${verb} ${domains.map(inert).join(', ')}`];
  });
  return [
    `${indent}may reach: ${reaches.length === 0 ? 'no origin (no network)' : reaches.join('; ')}`,
    `${indent}asks for: ${app.permissions.length === 0 ? 'no permission' : app.permissions.join(', ')}`,
    ...(app.domain === undefined ? [] : [`${indent}sandbox domain: ${inert(app.domain)}`]),
    `${indent}page sha256: ${app.contentSha256}`,
  ];
}
