/**
 * The rules both halves apply to a catalog, said once: hashes, tool names,
 * hosts, and which media types are JSON or text. The compiler imports
 * this file; the emitter copies it, as it is, to `generated/catalog-rules.ts`,
 * which the runtime imports (the runtime never imports the compiler). It
 * imports nothing but Node.
 */
import { hash } from 'node:crypto';

/** The sha256 of UTF-8 text or of bytes, in hex (one-shot: no Hash object per call). */
export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/**
 * RFC 8785 serialization of plain JSON data: object keys sorted by code unit,
 * numbers and strings as `JSON.stringify` writes them (which is what RFC 8785
 * specifies), no whitespace, members whose value is undefined left out. The
 * `canonicalize` package does the same for any JavaScript value (toJSON,
 * boxed primitives, cycles) at two to three times the cost; a test checks the
 * two agree on every action of the pinned catalogs. Callers bound the depth.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += value[i] === undefined ? 'null' : canonicalJson(value[i]);
    }
    return `${out}]`;
  }
  let out = '{';
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `${out}}`;
}

/** The sha256 of a value's canonical JSON: contract hashes, catalog hashes, argument hashes. */
export function hashJson(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/**
 * The longest tool name: MCP allows 128 characters, but model APIs that
 * take tools as functions (OpenAI's, Anthropic's) allow 64, and an agent
 * behind one of them cannot call a longer name.
 */
export const TOOL_NAME_MAX = 64;

/**
 * A tool name that fits: as it is when it does, else a readable start and a
 * hash of the whole name, so it stays deterministic and distinct.
 */
export function fitToolName(name: string): string {
  if (name.length <= TOOL_NAME_MAX) return name;
  const digest = sha256Hex(name).slice(0, 8);
  return `${name.slice(0, TOOL_NAME_MAX - digest.length - 1).replace(/_+$/, '')}_${digest}`;
}

/**
 * The host a server URL calls, as host allowlists name it: the URL standard's
 * `host` (lower case, IDNA ASCII, the port kept unless it is the scheme's
 * default), or undefined when the text is no URL.
 */
export function serverHost(url: string): string | undefined {
  return URL.canParse(url) ? new URL(url).host : undefined;
}

/** A media type without its parameters, lower case: `Application/JSON; charset=utf-8` → `application/json`. */
export function mediaTypeEssence(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

/** Whether a media type is JSON: `application/json`, `text/json`, or any `+json` suffix. */
export function isJsonMediaType(contentType: string): boolean {
  const type = mediaTypeEssence(contentType);
  return (
    type === 'application/json' || type === 'text/json' || /^[\w.-]+\/[\w.+-]*\+json$/.test(type)
  );
}

/** Text media types other than JSON: written and read as strings, never as bytes. */
const TEXT_TYPES = new Set([
  'application/xml',
  'application/yaml',
  'application/x-yaml',
  'application/javascript',
  'application/graphql',
  'application/sql',
  'application/x-ndjson',
  'application/jsonl',
  'application/csv',
  'application/x-www-form-urlencoded',
]);

/** Whether a media type (not JSON) is text: `text/*`, `+xml` and `+yaml` suffixes, and the usual others. */
export function isTextMediaType(contentType: string): boolean {
  const type = mediaTypeEssence(contentType);
  return (
    type.startsWith('text/') || /^[\w.-]+\/[\w.+-]*\+(xml|yaml)$/.test(type) || TEXT_TYPES.has(type)
  );
}
