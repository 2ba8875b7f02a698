/**
 * The contract diff between two versions of a catalog: what an operator must
 * review after a pin moves. Actions are matched by tool name.
 */

import { byCodeUnit } from '../code-unit-order.ts';
import type { Catalog, CatalogAction, Classification } from './format.ts';
import { canonicalJson } from './rules.ts';

export interface ContractDiff {
  provider: string;
  from: string;
  to: string;
  added: string[];
  removed: string[];
  classificationChanged: Array<{ name: string; from: Classification; to: Classification }>;
  schemaChanged: string[];
  /** Method, path, server, parameters' serialization, body rules, credential or hints. */
  requestChanged: string[];
  unchanged: number;
}

export function diffCatalogs(
  before: Pick<Catalog, 'provider' | 'hash' | 'actions'>,
  after: Pick<Catalog, 'provider' | 'hash' | 'actions'>,
): ContractDiff {
  const old = new Map(before.actions.map((a) => [a.name, a]));
  const now = new Map(after.actions.map((a) => [a.name, a]));
  const diff: ContractDiff = {
    provider: after.provider.id,
    from: before.hash,
    to: after.hash,
    added: [...now.keys()].filter((n) => !old.has(n)).sort(byCodeUnit),
    removed: [...old.keys()].filter((n) => !now.has(n)).sort(byCodeUnit),
    classificationChanged: [],
    schemaChanged: [],
    requestChanged: [],
    unchanged: 0,
  };
  for (const [name, action] of [...now].sort(([a], [b]) => byCodeUnit(a, b))) {
    const previous = old.get(name);
    if (!previous) continue;
    if (previous.contractHash === action.contractHash) {
      diff.unchanged++;
      continue;
    }
    if (previous.classification !== action.classification) {
      diff.classificationChanged.push({
        name,
        from: previous.classification,
        to: action.classification,
      });
    }
    if (!same(previous.inputSchema, action.inputSchema)) diff.schemaChanged.push(name);
    if (!same(requestContract(previous), requestContract(action))) diff.requestChanged.push(name);
  }
  return diff;
}

function requestContract(action: CatalogAction): unknown {
  return { request: action.request, hints: action.hints };
}

function same(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

export function formatDiff(diff: ContractDiff): string {
  const list = (title: string, names: string[]) =>
    names.length === 0
      ? [`  ${title}: none`]
      : [`  ${title} (${names.length}):`, ...names.map((n) => `    ${n}`)];
  return [
    `Contract diff for ${diff.provider}: catalog ${diff.from.slice(0, 12)} → ${diff.to.slice(0, 12)}`,
    ...list('added', diff.added),
    ...list('removed', diff.removed),
    ...list(
      'classification changed',
      diff.classificationChanged.map((c) => `${c.name}: ${c.from} → ${c.to}`),
    ),
    ...list('schema changed', diff.schemaChanged),
    ...list('request changed', diff.requestChanged),
    `  unchanged: ${diff.unchanged}`,
  ].join('\n');
}
