/**
 * Every operation is `read`, `write` or `destructive`, and the rule that decided
 * it is recorded. Rules are tried in order; the first that fires wins.
 *
 * The word rules read the operationId and the summary as whole words (camelCase,
 * snake_case, kebab-case and spaces split them; a lone capital stays with its
 * word, so "SignalR" is one word). A name that starts with a reading verb
 * (`get`, `list`, `describe`, ...) is not made destructive by a word later in it:
 * `ListDeletedItems` and `DescribePipelineExecution` name what they read.
 */
import type { Classification, ClassificationRule } from '../catalog/format.ts';
import type { Operation } from '../openapi/operation-object.ts';

export interface ClassificationResult {
  classification: Classification;
  rule: ClassificationRule;
  detail: string;
}

export interface ClassificationOverride {
  classification: Classification;
  why: string;
}

const SAFE_METHODS = new Set(['get', 'head', 'options', 'trace']);

const DESTRUCTIVE_VERBS = [
  'delete',
  'remove',
  'destroy',
  'stop',
  'suspend',
  'detach',
  'unpin',
  'terminate',
  'kill',
  'revoke',
];
/** The verb itself or a simple inflection of it: `deletes`, `removed`, `stopping`, `revocation`. */
const DESTRUCTIVE_WORD = new RegExp(
  `^(${DESTRUCTIVE_VERBS.join('|')})(s|d|ed|ing|ped|ping|ion|al)?$|^revocation$|^removal$|^termination$`,
);
/** Verbs (never nouns such as "execution") that run something or poke a running process. */
const COMMAND_WORDS = new Set(['exec', 'execute', 'executes', 'signal', 'signals', 'stdin']);
/** A name that starts with one of these says what it reads. */
const READING_VERBS = new Set([
  'browse',
  'check',
  'count',
  'describe',
  'download',
  'fetch',
  'find',
  'get',
  'inspect',
  'list',
  'lookup',
  'preview',
  'query',
  'read',
  'retrieve',
  'search',
  'show',
  'view',
]);

export function classify(
  operation: Operation,
  override: ClassificationOverride | undefined,
): ClassificationResult {
  if (override)
    return { classification: override.classification, rule: 'definition', detail: override.why };
  const method = operation.method;
  if (SAFE_METHODS.has(method)) {
    return {
      classification: 'read',
      rule: 'safe-method',
      detail: `${method.toUpperCase()} changes nothing`,
    };
  }
  if (method === 'delete')
    return { classification: 'destructive', rule: 'delete-method', detail: 'DELETE' };
  // The operationId speaks first: a summary that starts with "Get" does not excuse `DeleteItems`.
  for (const [field, text] of [
    ['operationId', operation.operationId],
    ['summary', operation.summary],
  ] as const) {
    const words = verbWordsOf(text);
    const verb = words.find((w) => DESTRUCTIVE_WORD.test(w));
    const command = verb === undefined ? commandWord(words) : undefined;
    const said = verb ?? command;
    const reading = leadingVerbs(text, words).find((w) => READING_VERBS.has(w));
    if (reading) {
      return {
        classification: 'write',
        rule: 'default-write',
        detail:
          said === undefined
            ? `${method.toUpperCase()} that is not a read`
            : `${method.toUpperCase()} that is not a read; its ${field} starts with "${reading}", so the later "${said}" names what it reads`,
      };
    }
    if (said !== undefined)
      return {
        classification: 'destructive',
        rule: verb ? 'destructive-word' : 'executes-command',
        detail: `${field} says "${said}"`,
      };
  }
  return {
    classification: 'write',
    rule: 'default-write',
    detail: `${method.toUpperCase()} that is not a read`,
  };
}

/** `RunCommand`, `run_command`, `Run a command` → `run`, `command` (how tool names are split too). */
export function wordsOf(text: string | undefined): string[] {
  return splitWords(text, /([a-z0-9])([A-Z])/g);
}

/**
 * The words the classification rules read: as {@link wordsOf}, except that a capital
 * alone at the end of a word is part of it (`SignalR_ListKeys` → `signalr`, `list`, `keys`).
 */
export function verbWordsOf(text: string | undefined): string[] {
  return splitWords(text, /([a-z0-9])([A-Z])(?=[A-Za-z0-9])/g);
}

function splitWords(text: string | undefined, camel: RegExp): string[] {
  if (!text) return [];
  return text
    .replace(camel, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** The words a name starts with: the first, and in `Resource_VerbNoun` ids (Azure's) the first after the `_`. */
function leadingVerbs(text: string | undefined, words: string[]): string[] {
  const azure = /^[A-Za-z0-9]+_([A-Za-z0-9]+)$/.exec(text ?? '');
  const after = azure ? verbWordsOf(azure[1])[0] : undefined;
  return [words[0], after].filter((w): w is string => w !== undefined);
}

function commandWord(words: string[]): string | undefined {
  const direct = words.find((w) => COMMAND_WORDS.has(w));
  if (direct) return direct;
  const runs = words.some((w) => w === 'run' || w === 'runs');
  const what = words.find((w) => /^(command|commands|script|scripts|code)$/.test(w));
  return runs && what ? `run ${what}` : undefined;
}
