/**
 * Every operation is `read`, `write` or `destructive`, and the rule that decided
 * it is recorded. Rules are tried in order; the first that fires wins.
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
const COMMAND_WORDS = new Set([
  'exec',
  'execute',
  'executes',
  'execution',
  'signal',
  'signals',
  'stdin',
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
  for (const [field, value] of [
    ['operationId', operation.operationId],
    ['summary', operation.summary],
  ] as const) {
    const words = wordsOf(value);
    const verb = words.find((w) => DESTRUCTIVE_WORD.test(w));
    if (verb)
      return {
        classification: 'destructive',
        rule: 'destructive-word',
        detail: `${field} says "${verb}"`,
      };
    const command = commandWord(words);
    if (command)
      return {
        classification: 'destructive',
        rule: 'executes-command',
        detail: `${field} says "${command}"`,
      };
  }
  return {
    classification: 'write',
    rule: 'default-write',
    detail: `${method.toUpperCase()} that is not a read`,
  };
}

/** `RunCommand`, `run_command`, `Run a command` → `run`, `command`. */
export function wordsOf(text: string | undefined): string[] {
  if (!text) return [];
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function commandWord(words: string[]): string | undefined {
  const direct = words.find((w) => COMMAND_WORDS.has(w));
  if (direct) return direct;
  const runs = words.some((w) => w === 'run' || w === 'runs');
  const what = words.find((w) => /^(command|commands|script|scripts|code)$/.test(w));
  return runs && what ? `run ${what}` : undefined;
}
