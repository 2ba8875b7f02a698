/** RFC 6901 JSON pointers, the address every problem in a document carries. */

export function escapeToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

export function unescapeToken(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}

export function childPointer(pointer: string, ...tokens: Array<string | number>): string {
  let result = pointer;
  for (const token of tokens) result += `/${escapeToken(String(token))}`;
  return result;
}

/** The value at `pointer` (no leading `#`), or `undefined` when it is not there. */
export function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    if (node === null || typeof node !== 'object') return undefined;
    const token = unescapeToken(raw);
    if (!Object.hasOwn(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

/** The pointer of an internal `$ref` (`#/components/schemas/A%20B` → `/components/schemas/A B`), or undefined for an external one. */
export function internalRefPointer(ref: string): string | undefined {
  if (!ref.startsWith('#')) return undefined;
  const fragment = ref.slice(1);
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}
