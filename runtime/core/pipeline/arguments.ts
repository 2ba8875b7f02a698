/** Checking a call's arguments against the action's input schema, and the audit's hash of them. */
import type { ErrorObject } from 'ajv';
import { hashJson, sha256Hex } from '../../../generated/catalog-rules.ts';
import { GatewayError } from '../base/errors.ts';
import { MAX_JSON_DEPTH } from '../base/json-depth.ts';
import { isPlainObject, pointerToken } from '../base/json-value.ts';
import type { GovernedAction, ToolSource } from '../governance/tool-source.ts';

export function validateArguments(
  source: Pick<ToolSource, 'validatorFor'>,
  action: GovernedAction,
  args: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const value = args ?? {};
  const validate = source.validatorFor(action);
  if (validate(value)) return value;
  const errors = validate.errors ?? [];
  const first = errors[0];
  const field = first ? fieldOf(first) : '';
  throw new GatewayError(
    'arguments_invalid',
    `arguments do not match ${action.name}'s input schema: ${errors
      .slice(0, 5)
      .map((e) => `${fieldOf(e) || '/'} ${e.message ?? e.keyword}`)
      .join('; ')}`,
    {
      field,
      detail: {
        errors: errors
          .slice(0, 20)
          .map((e) => ({ field: fieldOf(e), keyword: e.keyword, message: e.message })),
      },
    },
  );
}

/** The JSON pointer of the value to change: the missing or extra property itself when ajv names one. */
function fieldOf(error: ErrorObject): string {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const property = params.missingProperty ?? params.additionalProperty;
  return property === undefined
    ? error.instancePath
    : `${error.instancePath}/${pointerToken(property)}`;
}

/**
 * sha256 of the arguments' RFC 8785 canonical JSON: equal arguments, equal
 * hash; never the arguments. Arguments that cannot be encoded (a lone
 * surrogate, nesting deeper than `MAX_JSON_DEPTH`) are `arguments_invalid`,
 * naming the field.
 */
export function argumentHash(args: unknown): string {
  if (args === undefined || isEmptyObject(args)) return EMPTY_ARGUMENTS_HASH;
  ensureEncodable(args);
  return hashJson(args);
}

interface Place {
  value: unknown;
  /** The JSON pointer of `value`. */
  pointer: string;
  depth: number;
}

/**
 * Walks the arguments without recursion (they may nest 100,000 deep) and
 * refuses a string or a property name that is not well-formed UTF-16 (RFC
 * 8785 cannot encode a lone surrogate, nor could the provider's request), and
 * nesting past the bound, which names the top-level argument that nests.
 */
function ensureEncodable(args: unknown): void {
  const stack: Place[] = [{ value: args, pointer: '', depth: 0 }];
  for (let place = stack.pop(); place !== undefined; place = stack.pop()) {
    const { value, pointer, depth } = place;
    if (typeof value === 'string') {
      if (!isWellFormed(value)) throw unencodable(pointer, 'holds a lone surrogate');
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_JSON_DEPTH) {
      const second = pointer.indexOf('/', 1);
      const top = second < 0 ? pointer : pointer.slice(0, second);
      throw unencodable(top, `nests deeper than ${MAX_JSON_DEPTH} levels`);
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i], pointer: `${pointer}/${i}`, depth: depth + 1 });
    } else if (isPlainObject(value)) {
      for (const [key, member] of Object.entries(value)) {
        if (!isWellFormed(key))
          throw unencodable(pointer, 'has a property name with a lone surrogate');
        stack.push({ value: member, pointer: `${pointer}/${pointerToken(key)}`, depth: depth + 1 });
      }
    }
  }
}

function unencodable(field: string, what: string): GatewayError {
  return new GatewayError(
    'arguments_invalid',
    `the arguments cannot be encoded: ${field || 'the arguments'} ${what}`,
    { field, detail: { maxDepth: MAX_JSON_DEPTH } },
  );
}

/** `String.prototype.isWellFormed` (Node 20; ES2024, past this project's lib setting). */
function isWellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const _ in value) return false;
  return true;
}

/** The hash of `{}` (no arguments, the most common call), computed once. */
const EMPTY_ARGUMENTS_HASH = sha256Hex('{}');
