/**
 * Values whose JSON text is already known: an agent's tool list (hundreds of
 * tools, about a megabyte, unchanged until governance changes) and a
 * provider's JSON reply (the text it was parsed from). A host marks such a
 * value with its text; the reply writer splices the text in instead of
 * serialising the value again.
 */
import { isPlainObject } from '../../base/json-value.ts';

const texts = new WeakMap<object, string>();

/**
 * Marks `value` (which must not change afterwards) with its JSON text: by
 * default its serialisation, or a text the caller parsed it from.
 */
export function withJsonText<T extends object>(value: T, text: string = JSON.stringify(value)): T {
  texts.set(value, text);
  return value;
}

/** `JSON.stringify(message)`, splicing in the text of each marked member of `result`. */
export function stringifyMessage(message: unknown): string {
  const result = (message as { result?: unknown } | null)?.result;
  if (!isPlainObject(result) || !hasMarked(result)) return JSON.stringify(message);
  const members: string[] = [];
  for (const [key, member] of Object.entries(result)) {
    const text = isMarked(member)
      ? texts.get(member)
      : (JSON.stringify(member) as string | undefined);
    // As JSON.stringify does: undefined, functions and symbols leave no member.
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  const { id, jsonrpc } = message as { id: unknown; jsonrpc: unknown };
  return `{"jsonrpc":${JSON.stringify(jsonrpc)},"id":${JSON.stringify(id)},"result":{${members.join(',')}}}`;
}

function hasMarked(result: Record<string, unknown>): boolean {
  for (const key in result) if (isMarked(result[key])) return true;
  return false;
}

function isMarked(value: unknown): value is object {
  return typeof value === 'object' && value !== null && texts.has(value);
}
