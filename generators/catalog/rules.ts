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
 * What every compiled tool name of a provider starts with: its id, dashes
 * as underscores, and `_` (`coolify_`). A definition's tool prefixes must
 * start with it; the runtime shows a name unprefixed only when it does.
 */
export function providerToolPrefix(provider: string): string {
  return `${provider.replaceAll('-', '_')}_`;
}

/**
 * The host a server URL calls, as host allowlists name it: the URL standard's
 * `host` (lower case, IDNA ASCII, the port kept unless it is the scheme's
 * default), or undefined when the text is no URL.
 */
export function serverHost(url: string): string | undefined {
  return URL.canParse(url) ? new URL(url).host : undefined;
}

/**
 * Where a server URL template's variable lands: in the URL's scheme or host
 * (`host`), in its path (`path`), or at the start of its path
 * (`path-start`): a variable right after the host text
 * (`https://api.ebay.com{basePath}`) whose default and enum values all start
 * with `/`. A `path-start` value must start with `/` (or be empty), so no
 * value can reach into the host; a `host` value may hold only a host name's
 * characters. The compiler bounds hosts and the runtime checks values by it.
 */
export type ServerVariablePlace = 'host' | 'path-start' | 'path';

export interface ServerTemplateShape {
  url: string;
  variables: Readonly<Record<string, { default?: string; enum?: readonly string[] }>>;
}

export function serverVariablePlaces(
  server: ServerTemplateShape,
): Record<string, ServerVariablePlace> {
  const places: Record<string, ServerVariablePlace> = {};
  const scheme = server.url.indexOf('://');
  const hostStart = scheme < 0 ? 0 : scheme + 3;
  let inPath = false;
  let at = 0;
  for (const match of server.url.matchAll(/\{([^{}]+)\}/g)) {
    const from = Math.max(at, hostStart);
    if (match.index > from && /[/?#\\]/.test(server.url.slice(from, match.index))) inPath = true;
    const name = match[1]!;
    let place: ServerVariablePlace = inPath ? 'path' : 'host';
    if (!inPath && match.index >= hostStart && startsPath(server.variables[name])) {
      place = 'path-start';
      inPath = true;
    }
    // A variable written twice is held to its strictest place.
    places[name] =
      places[name] === 'host' ? 'host' : place === 'host' ? 'host' : (places[name] ?? place);
    at = match.index + match[0].length;
  }
  return places;
}

function startsPath(variable: { default?: string; enum?: readonly string[] } | undefined): boolean {
  const values = [
    ...(variable?.default === undefined ? [] : [variable.default]),
    ...(variable?.enum ?? []),
  ];
  return values.length > 0 && values.every((value) => value.startsWith('/'));
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

/**
 * A curated remote MCP server's endpoint pattern: an https URL and how its
 * path is matched. Matching compares strings only (the URL standard's
 * `host` and `pathname`); a definition's text never becomes a regular
 * expression.
 */
export interface EndpointPattern {
  url: string;
  match: 'exact' | 'prefix';
}

/** A pathname without one trailing slash (`/` stays `/`). */
function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/**
 * Why a pattern's URL is not one a curated definition may use, or undefined:
 * https, written exactly as the URL standard writes it (lower-case host, no
 * default port, no dot segments), a DNS name of letters, digits and dashes
 * with a dot (no IP address, no wildcard, no trailing dot), no
 * credentials, query or fragment, and a path without percent-escapes or
 * empty segments.
 */
export function whyEndpointPatternRefused(url: string): string | undefined {
  if (!URL.canParse(url)) return 'is not a URL';
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:') return 'is not https';
  if (parsed.username || parsed.password) return 'holds credentials';
  if (parsed.search || url.includes('?')) return 'has a query';
  if (parsed.hash || url.includes('#')) return 'has a fragment';
  if (parsed.href !== url) return `is not written as the URL standard writes it (${parsed.href})`;
  const hostname = parsed.hostname;
  if (hostname.startsWith('[') || /^[\d.]+$/.test(hostname)) return 'names an IP address';
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(hostname)) return 'does not name a public DNS host';
  if (parsed.pathname.includes('%')) return 'has a percent-escape in its path';
  if (parsed.pathname.includes('//')) return 'has an empty path segment';
  return undefined;
}

/**
 * Whether a URL is one a pattern names. The URL must parse, be `https:`
 * without credentials, and have exactly the pattern's host (the URL
 * standard's `host`: lower case, IDNA ASCII, the default port dropped, so
 * `mcp.linear.app.evil.example` or `mcp.linear.app:8443` never match). Its
 * path, one trailing slash aside on either side, must equal the pattern's
 * (`exact`), or equal it or continue it after a `/` (`prefix`: `/mcp`
 * matches `/mcp`, `/mcp/`, `/mcp/x/issues`, never `/mcpx`). Paths compare
 * case-sensitively and as written (`%6Dcp` is not `mcp`). Query and fragment
 * are not looked at.
 */
export function endpointPatternMatches(pattern: EndpointPattern, url: string): boolean {
  if (!URL.canParse(url) || !URL.canParse(pattern.url)) return false;
  const candidate = new URL(url);
  const wanted = new URL(pattern.url);
  if (candidate.protocol !== 'https:' || wanted.protocol !== 'https:') return false;
  if (candidate.username || candidate.password) return false;
  if (candidate.host !== wanted.host) return false;
  const path = withoutTrailingSlash(candidate.pathname);
  const base = withoutTrailingSlash(wanted.pathname);
  if (pattern.match === 'exact') return path === base;
  return base === '/' || path === base || path.startsWith(`${base}/`);
}

/** Whether some URL matches both patterns. */
export function endpointPatternsOverlap(a: EndpointPattern, b: EndpointPattern): boolean {
  return endpointPatternMatches(a, b.url) || endpointPatternMatches(b, a.url);
}

/** RFC 9110 `token`: what a header name may be. */
export const HEADER_NAME_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Header names only the transport (or the gateway's credential handling)
 * sets: framing, routing, connection management, credentials. No header a
 * user names (a catalog header parameter, an operator's custom header, a
 * curated definition's header) may be one.
 */
export const TRANSPORT_HEADER_NAMES: readonly string[] = [
  'authorization',
  'connection',
  'content-length',
  'cookie',
  'expect',
  'host',
  'http2-settings',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/** Prefixes of names only the transport or a browser sets. */
export const TRANSPORT_HEADER_PREFIXES: readonly string[] = ['proxy-', 'sec-'];

/**
 * What the MCP transport sets itself (Streamable HTTP, HTTP+SSE, 2026-07-28):
 * refused, beside the transport's names, as a remote MCP server's custom
 * header (an operator's, or one a curated definition lists).
 */
export const MCP_TRANSPORT_HEADER_NAMES: readonly string[] = [
  'accept',
  'content-type',
  'content-encoding',
  'last-event-id',
  'mcp-method',
  'mcp-name',
  'mcp-protocol-version',
  'mcp-session-id',
];
export const MCP_TRANSPORT_HEADER_PREFIXES: readonly string[] = ['mcp-param-'];

/** Why a header name is refused: not a token, a name someone else sets, or in such a family. */
export type HeaderNameRefusal = 'malformed' | 'managed' | 'family';

/** The one header-name rule: the transport's names and prefixes, plus the context's own. */
export function headerNameRefusal(
  name: string,
  also: { names?: readonly string[]; prefixes?: readonly string[] } = {},
): HeaderNameRefusal | undefined {
  if (!HEADER_NAME_TOKEN.test(name)) return 'malformed';
  const lower = name.toLowerCase();
  if (TRANSPORT_HEADER_NAMES.includes(lower)) return 'managed';
  if (TRANSPORT_HEADER_PREFIXES.some((prefix) => lower.startsWith(prefix))) return 'family';
  if (also.names?.some((refused) => refused.toLowerCase() === lower)) return 'managed';
  if (also.prefixes?.some((prefix) => lower.startsWith(prefix))) return 'family';
  return undefined;
}

/**
 * What the request builder sets itself for a catalog action, beside the
 * transport's names: the body's media type.
 */
export const CATALOG_BODY_HEADER_NAMES: readonly string[] = ['content-type'];

/**
 * The rule for a catalog action's header parameter (the runtime's and the
 * compiler's): a header the gateway owns is never an argument.
 */
export function catalogHeaderNameRefusal(name: string): HeaderNameRefusal | undefined {
  return headerNameRefusal(name, { names: CATALOG_BODY_HEADER_NAMES });
}

/** The rule for a remote MCP server's custom header (the runtime's and the compiler's). */
export function remoteHeaderNameRefusal(name: string): HeaderNameRefusal | undefined {
  return headerNameRefusal(name, {
    names: MCP_TRANSPORT_HEADER_NAMES,
    prefixes: MCP_TRANSPORT_HEADER_PREFIXES,
  });
}
