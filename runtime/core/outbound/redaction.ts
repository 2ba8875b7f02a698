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
 * Cost: a reply with no backslash and no secret is two byte searches per
 * needle, no copy; a reply with backslashes is checked for UTF-8 and decoded
 * once to look; only a reply that holds a secret is rewritten.
 */
import { isUtf8 } from 'node:buffer';
import { escapedSpans, unescapeJson } from './json-escapes.ts';

export const REDACTED = '[redacted]';
const REDACTED_BYTES = Buffer.from(REDACTED);

const BACKSLASH = 0x5c;

export class Redactor {
  readonly #needles: string[];
  readonly #needleBytes: Buffer[];

  constructor(secrets: readonly string[] = []) {
    const needles = new Set<string>();
    for (const secret of secrets) {
      if (secret.length === 0) continue;
      needles.add(secret);
      needles.add(encodeURIComponent(secret));
      needles.add(new URLSearchParams({ s: secret }).toString().slice(2));
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.#needles = [...needles].sort((a, b) => b.length - a.length);
    this.#needleBytes = this.#needles.map((needle) => Buffer.from(needle));
  }

  text(value: string): string {
    if (this.#needles.length === 0) return value;
    if (value.includes('\\')) return this.#escapedText(value);
    let out = value;
    for (const needle of this.#needles) out = out.split(needle).join(REDACTED);
    return out;
  }

  /** A reply body with every secret replaced; the same buffer when none occurs (the usual case). */
  bytes(body: Buffer): Buffer {
    if (this.#needles.length === 0) return body;
    let plain = body;
    for (const needle of this.#needleBytes) plain = replaceBytes(plain, needle);
    if (!plain.includes(BACKSLASH) || !isUtf8(plain)) return plain;
    const text = plain.toString('utf8');
    const redacted = this.#escapedText(text);
    return redacted === text ? plain : Buffer.from(redacted, 'utf8');
  }

  /** A text that may hide a secret in JSON escapes: decoded once to look, rewritten only when one is there. */
  #escapedText(value: string): string {
    const decoded = unescapeJson(value);
    if (!this.#needles.some((needle) => decoded.includes(needle))) return value;
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

/** Every occurrence of `needle` in `body` replaced; `body` itself when there is none. */
function replaceBytes(body: Buffer, needle: Buffer): Buffer {
  let at = body.indexOf(needle);
  if (at < 0) return body;
  const parts: Buffer[] = [];
  let from = 0;
  while (at >= 0) {
    parts.push(body.subarray(from, at), REDACTED_BYTES);
    from = at + needle.length;
    at = body.indexOf(needle, from);
  }
  parts.push(body.subarray(from));
  return Buffer.concat(parts);
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
