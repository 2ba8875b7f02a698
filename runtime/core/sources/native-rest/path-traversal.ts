/**
 * Whether text that lands in a URL path could step out of its place once the
 * provider, or a proxy in front of it, decodes it. A `/` is not a step by
 * itself (`arn:aws:…:portal/abc` is two segments, neither of them a step);
 * what is refused is a `.` or `..` segment in any form a server is known to
 * read as one:
 *
 * - percent-encoded, to three layers (`%2e%2e`, `%252e`), and IIS's `%u002e`;
 *   a percent-encoding that is not UTF-8 is refused outright, as a lenient
 *   decoder reads an overlong `%c0%ae` as a dot;
 * - Unicode compatibility forms (`．．`, `‥`), separators that a best-fit
 *   code page turns into `/` or `\` (`∕`, `⁄`, `¥`, `₩`), and invisible
 *   characters a normalizer drops (`.\u200b.`);
 * - `\` as a separator (Windows servers and the URL standard both read it so);
 * - a segment of dots and spaces (Windows trims them: `.. ` and `...`), or a
 *   dot segment followed by `;parameters` (Tomcat drops them: `..;x`).
 *
 * A control character (NUL among them) in any decoded layer is refused too.
 * No I/O; a pure function of the text.
 */

/** Decoding rounds before text that still holds escapes is refused. */
const MAX_DECODE_ROUNDS = 3;
/** Printable ASCII without `%` or `.`: no layer of it can hold a step or a control. */
const PLAIN = /^[\x20-\x24\x26-\x2d\x2f-\x7e]*$/;
const ESCAPE = /%(?:[0-9a-f]{2}|u[0-9a-f]{4})/i;
const ESCAPES = /%u[0-9a-f]{4}|(?:%[0-9a-f]{2})+/gi;
/** What a server may read as `/` or `\`: the two, and their best-fit and compatibility look-alikes. */
const SEPARATORS = /[/\\\u2044\u2215\u2216\u29f5\u29f8\u29f9\ufe68\uff0f\uff3c\u00a5\u20a9]/u;
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const DOTS_AND_SPACES = /^[.\s]*\.[.\s]*$/u;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Why `text` could step out of its place in a path, or undefined when it cannot. */
export function traversalIn(text: string): string | undefined {
  if (PLAIN.test(text)) return undefined;
  const layers = [text];
  let current = text;
  for (let round = 0; ESCAPE.test(current); round += 1) {
    if (round === MAX_DECODE_ROUNDS) return 'is percent-encoded too many times';
    const decoded = percentDecoded(current);
    if (decoded === undefined) return 'holds a percent-encoding that is not UTF-8';
    current = decoded;
    layers.push(current);
  }
  for (const layer of layers) {
    for (const form of formsOf(layer)) {
      if (hasControlCharacter(form)) return 'holds a control character';
      if (hasDotSegment(form)) return 'holds a . or .. path step';
    }
  }
  return undefined;
}

/** C0 controls, DEL and C1 controls. */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/** The text as written, NFKC-normalized, and with invisible characters dropped. */
function formsOf(layer: string): string[] {
  const normalized = layer.normalize('NFKC');
  const visible = normalized.replace(IGNORABLE, '');
  return visible === normalized
    ? normalized === layer
      ? [layer]
      : [layer, normalized]
    : [layer, normalized, visible];
}

function hasDotSegment(form: string): boolean {
  if (!form.includes('.')) return false;
  for (const segment of form.split(SEPARATORS)) {
    const semicolon = segment.indexOf(';');
    const step = semicolon < 0 ? segment : segment.slice(0, semicolon);
    if (DOTS_AND_SPACES.test(step)) return true;
  }
  return false;
}

/** One layer of percent-decoding (and IIS's `%uXXXX`); undefined when the bytes are not UTF-8. */
function percentDecoded(text: string): string | undefined {
  try {
    return text.replace(ESCAPES, (run) => {
      if (run[1] === 'u' || run[1] === 'U')
        return String.fromCharCode(Number.parseInt(run.slice(2), 16));
      const bytes = new Uint8Array(run.length / 3);
      for (let i = 0; i < bytes.length; i += 1)
        bytes[i] = Number.parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16);
      return utf8.decode(bytes);
    });
  } catch {
    return undefined;
  }
}
