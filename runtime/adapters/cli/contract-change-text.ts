/**
 * How the command shows what changed in a remote tool's (prompt's,
 * resource's, template's) contract: a text
 * word by word (`[-removed-]{+added+}`, as `git diff --word-diff` writes it),
 * a schema's or annotations' changes one JSON pointer a line. A line break
 * inside a server's text continues under its field, indented deeper than any
 * line the gateway writes, so a description cannot pass for another change.
 */
import { type ContractChange, isTextChange } from '../../core/sources/remote-mcp/contract-diff.ts';
import { inert } from './output.ts';

export function contractChangeLines(changes: readonly ContractChange[], indent = '    '): string[] {
  return changes.flatMap((change) => {
    if (isTextChange(change))
      return [
        `${indent}${change.field}: ${change.diff
          .map((part) =>
            part.op === '=' ? part.text : part.op === '-' ? `[-${part.text}-]` : `{+${part.text}+}`,
          )
          .join('')
          .replaceAll('\n', `\n${indent}  | `)}`,
      ];
    return change.diff.map((value) => {
      const where = `${indent}${change.field} ${inert(value.pointer) || '/'}`;
      if (!('before' in value)) return `${where}: added ${json(value.after)}`;
      if (!('after' in value)) return `${where}: removed (was ${json(value.before)})`;
      return `${where}: ${json(value.before)} → ${json(value.after)}`;
    });
  });
}

/**
 * What changed in each tool (prompt, resource, template) of a listing that
 * has changes, under a heading per item naming the action to review.
 */
export function changedToolsText(
  rows: ReadonlyArray<{
    action: string;
    tool: string;
    changes?: ContractChange[];
    changedSince?: string;
  }>,
  connection: string,
): string {
  return rows
    .filter((row) => row.changes !== undefined)
    .map(
      (row) =>
        `${inert(row.tool)} changed since its review (found ${row.changedSince}); approve it with portcullis review ${connection} ${inert(row.action)}:\n${contractChangeLines(row.changes!).join('\n')}\n`,
    )
    .join('');
}

function json(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
