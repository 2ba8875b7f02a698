/**
 * How text becomes search terms, the same way for an action's fields and for
 * an agent's query: split at anything not a letter or digit and at camelCase
 * humps (`listInstances`, `/v1/instances/{uuid}`, `create_sandbox` all give
 * their words), lower-cased, with a light English suffix rule so `instances`,
 * `instance` and `listing` meet their stems. A query also drops filler words
 * and brings the words people use for the same operation (`remove` for
 * `delete`, `launch` for `start`): see {@link SYNONYMS}.
 */

/** What a related word counts for, against the word asked for. */
export const RELATED_WEIGHT = 0.45;

/** Words a request is phrased with that say nothing about which action (`please show me all my …`). */
const FILLER = new Set(
  (
    'a an the of for to in on at my me i we our us your all any some every please want need ' +
    'would like can could you it its this that these those which what how is are be been with ' +
    'from by and or into onto there their them one ones do does just currently given so about ' +
    'let lets should will now once'
  ).split(' '),
);

/**
 * Words for the same operation or thing, as a person asks and as provider
 * documents write them. Each group is symmetric: any word of it brings the
 * others in (at a lower weight than the word asked for).
 */
export const SYNONYMS: readonly (readonly string[])[] = [
  ['remove', 'delete', 'destroy', 'erase', 'purge', 'drop', 'trash', 'revoke'],
  ['launch', 'start', 'create', 'boot', 'spin'],
  ['create', 'add', 'new', 'make', 'provision', 'register', 'store', 'file', 'open', 'invite'],
  ['show', 'get', 'list', 'view', 'display', 'fetch', 'read', 'retrieve', 'see', 'inspect'],
  [
    'kill',
    'stop',
    'signal',
    'terminate',
    'halt',
    'shutdown',
    'shut',
    'offline',
    'sigterm',
    'sigkill',
  ],
  ['update', 'edit', 'change', 'modify', 'patch', 'set', 'rename'],
  ['run', 'execute', 'exec', 'command', 'shell'],
  ['restart', 'reboot', 'reload'],
  ['pause', 'suspend', 'hibernate', 'sleep'],
  ['resume', 'unpause', 'wake', 'unsuspend'],
  ['cancel', 'abort'],
  ['deploy', 'deployment', 'release', 'ship', 'rollout'],
  ['rollback', 'revert', 'previous', 'undo'],
  ['log', 'logs', 'output', 'console', 'print', 'stdout', 'stderr'],
  ['metric', 'usage', 'cpu', 'memory', 'stats', 'statistics'],
  ['variable', 'env', 'var'],
  ['postgres', 'postgresql'],
  ['vm', 'instance', 'machine', 'unikernel'],
  ['organization', 'team'],
  ['user', 'member', 'account', 'people', 'who'],
  ['me', 'whoami', 'current', 'authenticated', 'am'],
  ['quota', 'limit', 'usage', 'used'],
  ['domain', 'hostname', 'dns', 'fqdn'],
  ['certificate', 'cert', 'tls', 'ssl'],
  ['volume', 'disk', 'storage'],
  ['folder', 'directory', 'mkdir'],
  ['ticket', 'issue', 'bug'],
  ['error', 'exception', 'crash', 'issue'],
  ['copy', 'clone', 'duplicate', 'fork'],
  ['archive', 'cold'],
  ['idle', 'autostop', 'autoarchive', 'autodelete', 'inactive', 'automatically'],
  ['resize', 'grow', 'shrink', 'bigger', 'larger', 'more'],
  ['validate', 'check', 'verify', 'reachable'],
  ['health', 'healthz', 'healthcheck', 'alive', 'live'],
  ['wait', 'block', 'await'],
  ['schedule', 'scheduled', 'cron', 'task', 'job'],
  ['upload', 'put'],
  ['download', 'fetch'],
  ['search', 'find', 'query', 'lookup', 'grep'],
  ['key', 'token', 'credential'],
  ['scale', 'replica', 'autoscale', 'autoscaling'],
  ['server', 'host', 'node'],
  ['health', 'status', 'state'],
  ['comment', 'reply', 'note'],
  ['merge', 'combine'],
  ['screenshot', 'picture', 'capture'],
  ['terminal', 'pty', 'tty', 'session'],
  ['stdin', 'input', 'feed'],
  ['cycle', 'sprint', 'iteration'],
  ['detach', 'unmount', 'unplug'],
  ['attach', 'mount', 'plug'],
  ['url', 'link', 'address'],
  ['bulk', 'several', 'multiple', 'many', 'batch'],
  ['backup', 'snapshot'],
  ['close', 'done', 'resolve', 'state', 'status', 'mark'],
];

/**
 * Short forms that are the same word (`env` is `environment`): each counts
 * as much as the word asked for, both ways.
 */
export const ABBREVIATIONS: readonly (readonly string[])[] = [
  ['env', 'environment'],
  ['repo', 'repository'],
  ['pr', 'pull'],
  ['db', 'database'],
  ['app', 'application'],
  ['org', 'organization', 'organisation'],
  ['dir', 'directory'],
  ['config', 'configuration'],
];

/** Two words a person writes for one (`back up` is `backup`), read as that one. */
const COMPOUNDS: ReadonlyMap<string, string> = new Map([
  ['back up', 'backup'],
  ['shut down', 'shutdown'],
  ['tear down', 'delete'],
  ['spin up', 'create'],
  ['set up', 'create'],
  ['roll back', 'rollback'],
  ['clean up', 'cleanup'],
  ['log in', 'login'],
  ['sign in', 'login'],
  ['how much', 'usage'],
]);

/**
 * Words that ask for a listing without naming it (`which sandboxes …`,
 * `every instance`), and how strongly.
 */
const LISTING: ReadonlyMap<string, number> = new Map([
  ['all', 1],
  ['every', 1],
  ['which', 1],
  ['what', RELATED_WEIGHT],
  ['have', RELATED_WEIGHT],
]);

/** Each word's other words in the groups, by stem (the word itself left out). */
function relatedBy(groups: readonly (readonly string[])[]): ReadonlyMap<string, readonly string[]> {
  const related = new Map<string, Set<string>>();
  for (const group of groups) {
    const stems = group.map(stem);
    for (const word of stems) {
      let set = related.get(word);
      if (!set) {
        set = new Set();
        related.set(word, set);
      }
      for (const other of stems) if (other !== word) set.add(other);
    }
  }
  return new Map([...related].map(([word, set]) => [word, [...set]]));
}

const RELATED = relatedBy(SYNONYMS);
const SAME = relatedBy(ABBREVIATIONS);

/** The words of a text: split at non-alphanumerics and camelCase humps, lower-cased. */
export function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

/**
 * A word's stem by a few English suffix rules (`instances` → `instance`,
 * `policies` → `policy`, `listing` → `list`, `stopped` → `stop`), then a
 * final `e` dropped (`created`, `creating` and `create` all give `creat`):
 * enough for API nouns and verbs, never so eager that unrelated words meet.
 */
export function stem(word: string): string {
  const base = withoutSuffix(word);
  return base.length > 4 && base.endsWith('e') ? base.slice(0, -1) : base;
}

function withoutSuffix(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(ss|us|is)$/.test(word)) return word;
  if (/(sh|ch|x|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s')) return word.slice(0, -1);
  if (word.endsWith('ing') && word.length > 5) return undouble(word.slice(0, -3));
  if (word.endsWith('ed') && word.length > 4) return undouble(word.slice(0, -2));
  return word;
}

/** `stopp` → `stop`, `runn` → `run` (but `install` stays). */
function undouble(word: string): string {
  return /([bdgmnprt])\1$/.test(word) ? word.slice(0, -1) : word;
}

/**
 * How much of a query is read: what a person asks fits in far less, and a
 * query is the caller's text, so its cost is bounded.
 */
export const QUERY_MAX = 1_000;
export const QUERY_WORDS_MAX = 32;

/** One term of a query, with the weight it counts for. */
export interface QueryTerm {
  readonly term: string;
  readonly boost: number;
}

/**
 * A query's terms: its words without filler, stemmed, each followed by its
 * short or long form at full weight and its related words at
 * {@link RELATED_WEIGHT}. A word describing a state (`running`, `stopped`)
 * is searched as it is but brings no related words: "deployments that are
 * running" does not ask to run anything. A query of filler only keeps its
 * words (someone searching for `all` gets what `all` finds).
 */
export function queryTerms(query: string): QueryTerm[] {
  const words = joinedCompounds(wordsOf(query.slice(0, QUERY_MAX)).slice(0, QUERY_WORDS_MAX));
  const meaningful = words.filter((word) => !FILLER.has(word) && !LISTING.has(word));
  const asked = meaningful.length > 0 ? meaningful : words;
  const terms = new Map<string, number>();
  const add = (term: string, boost: number) => {
    if ((terms.get(term) ?? 0) < boost) terms.set(term, boost);
  };
  for (const word of asked) {
    const base = stem(word);
    add(base, 1);
    for (const same of SAME.get(base) ?? []) add(same, 1);
  }
  for (const word of words) add('list', LISTING.get(word) ?? 0);
  for (const word of asked) {
    if (/(ing|ed)$/.test(word)) continue;
    for (const related of RELATED.get(stem(word)) ?? []) add(related, RELATED_WEIGHT);
  }
  return [...terms].map(([term, boost]) => ({ term, boost }));
}

function joinedCompounds(words: string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const compound = COMPOUNDS.get(`${words[i]} ${words[i + 1]}`);
    if (compound === undefined) joined.push(words[i]!);
    else {
      joined.push(compound);
      i++;
    }
  }
  return joined;
}
