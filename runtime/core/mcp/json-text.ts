/**
 * Results a host serialises once and serves many times (an agent's tool list:
 * hundreds of tools, about a megabyte of JSON, unchanged until governance
 * changes). A host marks such a value with its JSON text; the reply writer
 * splices the text in instead of serialising the value again.
 */
const texts = new WeakMap<object, string>();

/** Marks `value` (which must not change afterwards) with its JSON text. */
export function withJsonText<T extends object>(value: T): T {
  texts.set(value, JSON.stringify(value));
  return value;
}

/** `JSON.stringify(message)`, splicing in the text of a marked `result.tools`. */
export function stringifyMessage(message: unknown): string {
  const result = (message as { result?: { tools?: unknown } } | null)?.result;
  const tools = result?.tools;
  const text = typeof tools === 'object' && tools !== null ? texts.get(tools) : undefined;
  if (text === undefined || Object.keys(result as object).length !== 1)
    return JSON.stringify(message);
  const { id, jsonrpc } = message as { id: unknown; jsonrpc: unknown };
  return `{"jsonrpc":${JSON.stringify(jsonrpc)},"id":${JSON.stringify(id)},"result":{"tools":${text}}}`;
}
