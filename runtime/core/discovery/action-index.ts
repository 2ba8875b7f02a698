/**
 * The full-text index of the actions a caller may call, and the one search
 * over it. Built once per governance snapshot from the actions the caller
 * would see in `tools/list` (the pipeline caches it as it caches the list);
 * a search never sees an action outside it, so search cannot widen what a
 * caller reaches, and `allowed` narrows it further (a token's scopes).
 *
 * MiniSearch does the indexing and BM25 ranking, with prefix and fuzzy
 * matching; the words themselves (splitting, stems, filler, synonyms) are
 * `search-terms.ts`'s.
 */
import MiniSearch, { type SearchResult as MiniSearchResult } from 'minisearch';
import type { Classification } from '../../../generated/catalog-format.ts';
import type { DiscoverableAction } from './discoverable-action.ts';
import { queryTerms, stem, wordsOf } from './search-terms.ts';

/** What `search_actions` is asked. */
export interface SearchRequest {
  /** Words of what the caller wants to do. */
  query: string;
  /** Only this connection's actions (its name). */
  connection?: string;
  class?: Classification;
  /** How many results at most: {@link SEARCH_LIMIT_DEFAULT} unless given, at most {@link SEARCH_LIMIT_MAX}. */
  limit?: number;
  /** Narrows the index further (the caller's token scopes); never widens it. */
  allowed?: (action: DiscoverableAction) => boolean;
}

/** One action found, as `search_actions` returns it. */
export interface SearchResult {
  action: string;
  connection: string;
  class: Classification;
  title: string;
  summary: string;
  /** The relevance, higher is better (comparable within one search only). */
  score: number;
}

export const SEARCH_LIMIT_DEFAULT = 8;
export const SEARCH_LIMIT_MAX = 50;

/** The fields searched, and how much a match in each counts. */
const FIELD_BOOSTS = {
  name: 3,
  title: 2.5,
  summary: 1.5,
  path: 1.2,
  connection: 1,
  parameters: 0.6,
  description: 0.5,
} as const;
type Field = keyof typeof FIELD_BOOSTS;
const FIELDS = Object.keys(FIELD_BOOSTS) as Field[];

/** What a deprecated action's score counts for: its replacement comes first. */
const DEPRECATED_WEIGHT = 0.5;

/**
 * How much the share of an action's name the query covers adds to its score:
 * `create_server` answers "add a server" better than `create_hetzner_server`,
 * though both match every word asked.
 */
const NAME_COVERAGE_WEIGHT = 3;

/** Words of tool names that say how an action is addressed, not what it does. */
const ADDRESSING_WORDS = new Set(['by', 'uuid', 'id', 'ids', 'name', 'or', 'and', 'for', 'from']);

/**
 * What an action of a connection the query names counts for ("… on
 * coolify", "a linear ticket"): a person naming the service means it.
 */
const NAMED_CONNECTION_WEIGHT = 3;

/**
 * Between equally good matches, the less dangerous first: a read before a
 * write before a destructive action.
 */
const CLASS_WEIGHTS = { read: 1, write: 0.97, destructive: 0.94 } as const;

/**
 * How much of a description and of the parameter names is indexed: a remote
 * server writes its own, and a megabyte of it must not cost every search
 * (nor buy its tool a place by repeating words; BM25 saturates that too).
 */
const INDEXED_TEXT_MAX = 4_000;

/** The words every native action's input schema wraps its parameters in. */
const ARGUMENT_GROUPS = new Set(['server', 'path', 'query', 'header', 'cookie', 'body']);

export class ActionIndex {
  readonly #actions: readonly DiscoverableAction[];
  readonly #byName: ReadonlyMap<string, DiscoverableAction>;
  /** Each action's name terms (its connection and addressing words left out). */
  readonly #nameTerms: readonly ReadonlySet<string>[];
  /** The connections' names, as words a query may hold. */
  readonly #connections: ReadonlySet<string>;
  readonly #search: MiniSearch<Record<Field, string> & { id: number }>;

  constructor(actions: Iterable<DiscoverableAction>) {
    this.#actions = [...actions];
    this.#byName = new Map(this.#actions.map((action) => [action.action, action]));
    this.#connections = new Set(this.#actions.map((action) => action.connection));
    const names = this.#actions.map(ownName);
    this.#nameTerms = names.map(
      (name) =>
        new Set(
          wordsOf(name)
            .filter((word) => !ADDRESSING_WORDS.has(word))
            .map(stem),
        ),
    );
    this.#search = new MiniSearch({
      fields: FIELDS,
      storeFields: [],
      tokenize: wordsOf,
      processTerm: stem,
    });
    this.#search.addAll(
      this.#actions.map((action, id) => ({
        id,
        name: names[id]!,
        title: action.title,
        summary: action.summary,
        path: (action.path ?? '').replace(/\bv\d+\b/g, ' '),
        connection: action.connection,
        parameters: parameterNames(action.inputSchema).join(' ').slice(0, INDEXED_TEXT_MAX),
        description: action.description.slice(0, INDEXED_TEXT_MAX),
      })),
    );
  }

  /** How many actions it holds. */
  get size(): number {
    return this.#actions.length;
  }

  /** An action in the index by its tool name. */
  get(action: string): DiscoverableAction | undefined {
    return this.#byName.get(action);
  }

  /** The search behind {@link searchActions}: MiniSearch's hits, best first. */
  hits(request: SearchRequest): Array<{ action: DiscoverableAction; score: number }> {
    const terms = queryTerms(request.query);
    if (terms.length === 0) return [];
    // Connection names are lowercase letters, digits and dashes.
    const named = new Set(
      request.query
        .toLowerCase()
        .split(/[^a-z0-9-]+/)
        .filter((word) => this.#connections.has(word)),
    );
    const matches = (action: DiscoverableAction) =>
      (request.connection === undefined || action.connection === request.connection) &&
      (request.class === undefined || action.class === request.class) &&
      (request.allowed === undefined || request.allowed(action));
    const found: MiniSearchResult[] = this.#search.search(terms.map((t) => t.term).join(' '), {
      tokenize: (text) => text.split(' '),
      processTerm: (term) => term,
      boostTerm: (_term, i) => terms[i]?.boost ?? 1,
      boost: FIELD_BOOSTS,
      // Only the words asked for are completed and forgiven typos, not their related words.
      prefix: (term, i) => term.length >= 3 && terms[i]?.boost === 1,
      fuzzy: (term, i) => (term.length >= 5 && terms[i]?.boost === 1 ? 0.2 : false),
      maxFuzzy: 1,
      weights: { prefix: 0.5, fuzzy: 0.35 },
      combineWith: 'OR',
      boostDocument: (id) => (this.#actions[id as number]!.deprecated ? DEPRECATED_WEIGHT : 1),
      filter: (result) => matches(this.#actions[result.id as number]!),
    });
    return found
      .map((result) => {
        const id = result.id as number;
        const coverage = this.#nameCoverage(id, result.match);
        const action = this.#actions[id]!;
        const weight =
          (1 + NAME_COVERAGE_WEIGHT * coverage) *
          CLASS_WEIGHTS[action.class] *
          (named.has(action.connection) ? NAMED_CONNECTION_WEIGHT : 1);
        return { action, score: result.score * weight };
      })
      .sort(
        (a, b) =>
          b.score - a.score ||
          (a.action.action < b.action.action ? -1 : a.action.action > b.action.action ? 1 : 0),
      );
  }

  /** The share of an action's name terms the query matched (0 to 1). */
  #nameCoverage(id: number, match: MiniSearchResult['match']): number {
    const terms = this.#nameTerms[id]!;
    if (terms.size === 0) return 0;
    let matched = 0;
    for (const [term, fields] of Object.entries(match))
      if (terms.has(term) && fields.includes('name')) matched++;
    return matched / terms.size;
  }
}

/** The tool's name without its connection's (`coolify_list_applications` → `list_applications`). */
function ownName({ action, connection }: DiscoverableAction): string {
  for (const prefix of [`${connection}__`, `${connection}_`])
    if (action.startsWith(prefix)) return action.slice(prefix.length);
  return action;
}

/**
 * The actions that best match a request, best first: at most `limit`
 * (default 8, at most 50), only from the index (what the caller may call),
 * filtered by connection and class. Empty when nothing matches.
 */
export function searchActions(index: ActionIndex, request: SearchRequest): SearchResult[] {
  const limit = request.limit ?? SEARCH_LIMIT_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMIT_MAX)
    throw new TypeError(`limit must be an integer from 1 to ${SEARCH_LIMIT_MAX}`);
  return index
    .hits(request)
    .slice(0, limit)
    .map(({ action, score }) => ({
      action: action.action,
      connection: action.connection,
      class: action.class,
      title: action.title,
      summary: action.summary,
      score: Math.round(score * 1000) / 1000,
    }));
}

/**
 * The property names of an input schema, nested ones too (a native action's
 * arguments sit under `path`, `query`, `body`, … whose own names say nothing).
 */
function parameterNames(schema: unknown, depth = 0, names: string[] = []): string[] {
  if (depth > 3 || typeof schema !== 'object' || schema === null) return names;
  const { properties, items } = schema as { properties?: unknown; items?: unknown };
  if (typeof properties === 'object' && properties !== null) {
    for (const [name, property] of Object.entries(properties)) {
      const group = depth === 0 && ARGUMENT_GROUPS.has(name) && hasProperties(property);
      if (!group) names.push(name);
      parameterNames(property, depth + 1, names);
    }
  }
  if (items !== undefined) parameterNames(items, depth + 1, names);
  return names;
}

function hasProperties(schema: unknown): boolean {
  return (
    typeof schema === 'object' && schema !== null && ('properties' in schema || 'items' in schema)
  );
}
