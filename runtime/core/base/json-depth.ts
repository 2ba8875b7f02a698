/**
 * How deep JSON may nest where the gateway passes it on: agents' arguments
 * and providers' replies. Far beyond any real document, far below what
 * re-encoding (`JSON.stringify` recurses) or an agent's own parser survives
 * (Python's stops near 1,000 levels).
 */
export const MAX_JSON_DEPTH = 256;

/**
 * Whether JSON text nests deeper than `limit` arrays and objects. One pass
 * over the characters, skipping string literals; text too short to nest that
 * deep is not read at all.
 */
export function jsonTextNestsDeeperThan(text: string, limit: number): boolean {
  if (text.length <= 2 * limit) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return false;
}

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
