/**
 * A held call's arguments as approvers see them: every value whose schema
 * says it is write-only (`writeOnly: true`, or `format: password`) is
 * replaced by a mark, at any depth the schema describes (properties, array
 * items, `$defs` by a local `$ref`). What remains is the agent's text, shown
 * inert wherever it is shown.
 */
import { isPlainObject } from '../base/json-value.ts';

/** What stands in for a write-only value. */
export const WRITE_ONLY_MARK = '(write-only, not shown)';

export function shownArguments(
  args: Record<string, unknown> | undefined,
  inputSchema: Record<string, unknown>,
): Record<string, unknown> {
  const shown = masked(args ?? {}, inputSchema, inputSchema, 0);
  return isPlainObject(shown) ? shown : {};
}

const DEPTH_MAX = 32;

function masked(
  value: unknown,
  schema: unknown,
  root: Record<string, unknown>,
  depth: number,
): unknown {
  if (!isPlainObject(schema) || depth > DEPTH_MAX) return value;
  const resolved = resolve(schema, root);
  if (resolved.writeOnly === true || resolved.format === 'password') return WRITE_ONLY_MARK;
  if (Array.isArray(value)) {
    return value.map((item) => masked(item, resolved.items, root, depth + 1));
  }
  if (isPlainObject(value)) {
    const properties = isPlainObject(resolved.properties) ? resolved.properties : {};
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      const own = Object.hasOwn(properties, key) ? properties[key] : resolved.additionalProperties;
      out[key] = masked(inner, own, root, depth + 1);
    }
    return out;
  }
  return value;
}

/** A local `$ref` (`#/$defs/x`, `#/definitions/x`), once; anything else as it is. */
function resolve(schema: Record<string, unknown>, root: Record<string, unknown>) {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema;
  let at: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    if (!isPlainObject(at)) return schema;
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    at = Object.hasOwn(at, key) ? at[key] : undefined;
  }
  return isPlainObject(at) ? { ...at, ...schema } : schema;
}
