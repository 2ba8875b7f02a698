/** Checking a call's arguments against the action's input schema, and the audit's hash of them. */
import type { ErrorObject } from 'ajv';
import canonicalize from 'canonicalize';
import { GatewayError } from '../errors.ts';
import { pointerToken } from '../json-value.ts';
import { sha256Hex } from '../sha256.ts';
import type { GovernedAction, ToolSource } from '../tools/tool-source.ts';

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

/** sha256 of the arguments' RFC 8785 canonical JSON: equal arguments, equal hash; never the arguments. */
export function argumentHash(args: unknown): string {
  if (args === undefined || isEmptyObject(args)) return EMPTY_ARGUMENTS_HASH;
  return sha256Hex(canonicalize(args) ?? '');
}

function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const _ in value) return false;
  return true;
}

/** The hash of `{}` (no arguments, the most common call), computed once. */
const EMPTY_ARGUMENTS_HASH = sha256Hex('{}');
