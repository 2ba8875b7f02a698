/**
 * Values whose JSON text is already known: an agent's tool list (hundreds of
 * tools, about a megabyte, unchanged until governance changes) and a
 * provider's JSON reply (the text it was parsed from). A host marks such a
 * value with its text; the reply writer splices the text in instead of
 * serialising the value again.
 */
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
  const resultText =
    typeof result === 'object' && result !== null && !Array.isArray(result)
      ? splicedObject(result as Record<string, unknown>)
      : undefined;
  if (resultText === undefined) return JSON.stringify(message);
  const { id, jsonrpc } = message as { id: unknown; jsonrpc: unknown };
  return `{"jsonrpc":${JSON.stringify(jsonrpc)},"id":${JSON.stringify(id)},"result":${resultText}}`;
}

/** The object's JSON with its marked members spliced in; undefined when none is marked. */
function splicedObject(value: Record<string, unknown>): string | undefined {
  let marked = false;
  const members: string[] = [];
  for (const key of Object.keys(value)) {
    const member = value[key];
    const known = typeof member === 'object' && member !== null ? texts.get(member) : undefined;
    if (known !== undefined) marked = true;
    const text = known ?? (JSON.stringify(member) as string | undefined);
    // As JSON.stringify does: undefined, functions and symbols leave no member.
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return marked ? `{${members.join(',')}}` : undefined;
}
