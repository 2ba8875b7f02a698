/**
 * Finding a text inside JSON escapes. JSON lets a writer escape any character
 * (`\u0043` for `C`, `\/` for `/`, as PHP and .NET do by default), and the
 * reader decodes it back, so a search of the raw bytes misses what a JSON
 * parser will see. These work on the raw text, in or out of string literals,
 * and need no valid JSON: a reply that fails to parse is still shown as text.
 */

/** `\uXXXX` or a one-character escape; a `\\` pair is consumed whole, so `\\u0041` is no escape. */
const ESCAPE = /\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g;

const SIMPLE: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

function decodeEscape(hex: string | undefined, simple: string | undefined): string {
  return hex === undefined ? SIMPLE[simple!]! : String.fromCharCode(Number.parseInt(hex, 16));
}

/** The text with every JSON escape decoded (what a JSON parser would see in its strings). */
export function unescapeJson(text: string): string {
  return text.replace(ESCAPE, (_match, hex?: string, simple?: string) => decodeEscape(hex, simple));
}

/**
 * The raw spans `[start, end)` of `text` whose decoded form is one of
 * `needles`, sorted and merged; each span covers whole escapes only, so
 * replacing it leaves the rest of a JSON string literal intact.
 */
export function escapedSpans(text: string, needles: readonly string[]): Array<[number, number]> {
  // Each escape: where its character sits in the decoded text, and the raw
  // characters it added beyond one, summed over it and every escape before it.
  const decodedAt: number[] = [];
  const extraSoFar: number[] = [];
  let extra = 0;
  let decoded = '';
  let rawAt = 0;
  ESCAPE.lastIndex = 0;
  for (let match = ESCAPE.exec(text); match !== null; match = ESCAPE.exec(text)) {
    decoded += text.slice(rawAt, match.index);
    decodedAt.push(decoded.length);
    extra += match[0].length - 1;
    extraSoFar.push(extra);
    decoded += decodeEscape(match[1], match[2]);
    rawAt = match.index + match[0].length;
  }
  decoded += text.slice(rawAt);

  /** The raw offset of a decoded offset: the escapes before it add their extra length. */
  const rawOffset = (offset: number): number => {
    // The number of escapes whose character comes before `offset` (binary search).
    let low = 0;
    let high = decodedAt.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (decodedAt[middle]! < offset) low = middle + 1;
      else high = middle;
    }
    return offset + (low === 0 ? 0 : extraSoFar[low - 1]!);
  };

  const found: Array<[number, number]> = [];
  for (const needle of needles) {
    for (let at = decoded.indexOf(needle); at >= 0; at = decoded.indexOf(needle, at + 1)) {
      found.push([at, at + needle.length]);
    }
  }
  found.sort((a, b) => a[0] - b[0]);
  const spans: Array<[number, number]> = [];
  for (const [start, end] of found) {
    const last = spans.at(-1);
    const rawStart = rawOffset(start);
    const rawEnd = rawOffset(end);
    if (last !== undefined && rawStart <= last[1]) last[1] = Math.max(last[1], rawEnd);
    else spans.push([rawStart, rawEnd]);
  }
  return spans;
}
