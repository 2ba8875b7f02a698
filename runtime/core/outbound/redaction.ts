/**
 * Keeps secrets out of what an outbound exchange shows: its errors (the URL
 * without userinfo) and the reply body, with every secret the caller named
 * (and its percent-encoded forms) replaced, written plainly or hidden in JSON
 * escapes (`\u0043ANARY`, `\/`, `\u002B`), which an agent's JSON parser would
 * decode back into the secret. Build one per set of secrets and keep it: the
 * needles are worked out once.
 *
 * Replies are redacted as bytes: a secret written plainly is replaced where
 * its UTF-8 bytes occur, so an image or an archive keeps every other byte. Only
 * a reply that is UTF-8 text can hide a secret in JSON escapes (a JSON parser
 * reads nothing else), so only such a reply is decoded to look for them.
 *
 * A redactor may name another it works `also` (a workspace's secrets, shared
 * by every call there): a text goes through that one's needles first (the
 * workspace's hold the call's own as a rule, longest first), then this one's.
 *
 * Cost: every needle is looked for in one pass, by one regular expression of
 * them all (V8 compiles a literal alternation into one search), over the
 * bytes read as latin1 (one character per byte, so the offsets are the
 * bytes'); `scripts/bench/redaction.ts` measures it with 1 and 50 secrets. A reply
 * with no backslash and no secret is that one pass; a reply with
 * backslashes is checked for UTF-8 and decoded once to look; only a reply
 * that holds a secret is rewritten.
 */
import { isUtf8 } from 'node:buffer';
import { escapedSpans, unescapeJson } from './json-escapes.ts';

export const REDACTED = '[redacted]';

const BACKSLASH = 0x5c;

export class Redactor {
  readonly #needles: string[];
  readonly #needleSet: ReadonlySet<string>;
  /** Every needle, longest first (a secret that contains another is replaced whole). */
  readonly #textPattern: RegExp | undefined;
  /** The same, of each needle's UTF-8 bytes read as latin1. */
  readonly #bytePattern: RegExp | undefined;
  readonly #also: Redactor | undefined;

  constructor(secrets: readonly string[] = [], also?: Redactor) {
    const needles = new Set<string>();
    for (const secret of secrets) {
      if (secret.length === 0) continue;
      needles.add(secret);
      needles.add(encodeURIComponent(secret));
      needles.add(new URLSearchParams({ s: secret }).toString().slice(2));
    }
    // A needle the redactor beside it finds already costs no second pass (the usual case:
    // the workspace's hold the call's own).
    this.#needleSet = needles;
    this.#needles = [...needles]
      .filter((needle) => also === undefined || !also.#finds(needle))
      .sort((a, b) => b.length - a.length);
    this.#textPattern = patternOf(this.#needles);
    this.#bytePattern = patternOf(
      this.#needles.map((needle) => Buffer.from(needle).toString('latin1')),
    );
    this.#also = also;
  }

  #finds(needle: string): boolean {
    if (this.#needleSet.has(needle)) return true;
    return this.#also === undefined ? false : this.#also.#finds(needle);
  }

  /** The redactor this one applies before its own needles. */
  get also(): Redactor | undefined {
    return this.#also;
  }

  text(value: string): string {
    return this.#ownText(this.#also === undefined ? value : this.#also.text(value));
  }

  #ownText(value: string): string {
    const pattern = this.#textPattern;
    if (pattern === undefined) return value;
    if (value.includes('\\')) return this.#escapedText(value);
    return value.replace(pattern, REDACTED);
  }

  /** A reply body with every secret replaced; the same buffer when none occurs (the usual case). */
  bytes(body: Buffer): Buffer {
    return this.#ownBytes(this.#also === undefined ? body : this.#also.bytes(body));
  }

  #ownBytes(body: Buffer): Buffer {
    const pattern = this.#bytePattern;
    if (pattern === undefined) return body;
    let plain = body;
    const latin1 = body.toString('latin1');
    pattern.lastIndex = 0;
    if (pattern.test(latin1)) plain = Buffer.from(latin1.replace(pattern, REDACTED), 'latin1');
    if (!plain.includes(BACKSLASH) || !isUtf8(plain)) return plain;
    const text = plain.toString('utf8');
    const redacted = this.#escapedText(text);
    return redacted === text ? plain : Buffer.from(redacted, 'utf8');
  }

  /** A text that may hide a secret in JSON escapes: decoded once to look, rewritten only when one is there. */
  #escapedText(value: string): string {
    const decoded = unescapeJson(value);
    const pattern = this.#textPattern!;
    pattern.lastIndex = 0;
    if (!pattern.test(decoded)) return value;
    let out = '';
    let at = 0;
    for (const [start, end] of escapedSpans(value, this.#needles)) {
      out += value.slice(at, start) + REDACTED;
      at = end;
    }
    return out + value.slice(at);
  }

  /** The URL as errors may show it: no userinfo, no fragment, secrets replaced. */
  url(url: URL): string {
    return this.text(`${url.protocol}//${url.host}${url.pathname}${url.search}`);
  }

  /** A copy of a detail object with every string (deeply) redacted. */
  detail(detail: Record<string, unknown>): Record<string, unknown> {
    return redactValue(detail, this) as Record<string, unknown>;
  }
}

/** One expression that finds any of `needles` (in their order), or undefined for none. */
function patternOf(needles: readonly string[]): RegExp | undefined {
  if (needles.length === 0) return undefined;
  return new RegExp(
    needles.map((needle) => needle.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')).join('|'),
    'g',
  );
}

/** For an exchange that carries no secret. */
export const NO_SECRETS = new Redactor();

function redactValue(value: unknown, redactor: Redactor): unknown {
  if (typeof value === 'string') return redactor.text(value);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redactor));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, redactValue(item, redactor)]),
    );
  }
  return value;
}
