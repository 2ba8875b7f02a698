/**
 * The class of an upstream tool, and the rule that decided it, first rule
 * that fires winning:
 *
 * 1. an operator's override (`override`);
 * 2. the tool's annotations, when it states any hint: `readOnlyHint: true` →
 *    read; otherwise `destructiveHint` not false (MCP's default is true) →
 *    destructive; otherwise write (`annotation:…`);
 * 3. the verbs of its name, read as whole words (`verb:<word>`): a reading
 *    verb first (`get_…`, `listItems`) → read, a destructive verb anywhere →
 *    destructive;
 * 4. write (`default`): a tool that says nothing is not assumed harmless.
 */
import type { Classification } from '../../../../generated/catalog-format.ts';
import type { RemoteToolContract } from '../../model/remote.ts';

const READING_VERBS = new Set([
  'get',
  'list',
  'search',
  'read',
  'fetch',
  'find',
  'query',
  'describe',
  'show',
  'view',
  'lookup',
  'count',
  'retrieve',
  'echo',
]);

const DESTRUCTIVE_VERBS = new Set([
  'delete',
  'remove',
  'destroy',
  'drop',
  'purge',
  'erase',
  'terminate',
  'kill',
  'revoke',
  'wipe',
  'truncate',
]);

export interface RemoteClassification {
  classification: Classification;
  rule: string;
}

export function classifyRemoteTool(
  contract: Pick<RemoteToolContract, 'name' | 'annotations'>,
  override?: Classification,
): RemoteClassification {
  if (override !== undefined) return { classification: override, rule: 'override' };
  const hints = contract.annotations ?? {};
  if (hints.readOnlyHint !== undefined || hints.destructiveHint !== undefined) {
    if (hints.readOnlyHint === true)
      return { classification: 'read', rule: 'annotation:readOnlyHint' };
    if (hints.destructiveHint !== false)
      return { classification: 'destructive', rule: 'annotation:destructiveHint' };
    return { classification: 'write', rule: 'annotation:destructiveHint=false' };
  }
  const words = nameWords(contract.name);
  const first = words[0];
  if (first !== undefined && READING_VERBS.has(first))
    return { classification: 'read', rule: `verb:${first}` };
  const destructive = words.find((word) => DESTRUCTIVE_VERBS.has(word));
  if (destructive !== undefined)
    return { classification: 'destructive', rule: `verb:${destructive}` };
  return { classification: 'write', rule: 'default' };
}

/** `listOpenIssues`, `list_open-issues`, `list.open issues` → list, open, issues. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}
