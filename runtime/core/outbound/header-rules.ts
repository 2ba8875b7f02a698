/**
 * Which request headers a user (today a catalog header parameter) may set. The transport owns framing, routing,
 * connection management and credentials; those names are refused, and so is
 * any value the HTTP layer would have to split or reject. Messages name the
 * header, never its value (a value may be a credential).
 */
import { GatewayError } from '../errors.ts';

/** Header names only the transport (or the gateway's credential handling) sets. */
const TRANSPORT_NAMES = new Set([
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
]);

/** Prefixes of names only the transport or a browser sets. */
const TRANSPORT_PREFIXES = ['proxy-', 'sec-'];

/** RFC 9110 `token`. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Visible ASCII, space and obs-text: no control characters (CR, LF, NUL, tab, DEL). */
const FIELD_VALUE = /^[\x20-\x7e\x80-\xff]*$/;

export interface HeaderRuleOptions {
  /** More names to refuse in this context (any case), e.g. `content-type` where a body builder owns it. */
  alsoRefuse?: readonly string[];
}

/** Why a header name may not be set by a user, or undefined when it may. */
export function whyHeaderNameRefused(
  name: string,
  options: HeaderRuleOptions = {},
): string | undefined {
  if (!TOKEN.test(name)) return 'is not a valid header name';
  const lower = name.toLowerCase();
  if (TRANSPORT_NAMES.has(lower)) return 'is set by the gateway, not by the caller';
  if (TRANSPORT_PREFIXES.some((prefix) => lower.startsWith(prefix)))
    return 'is in a family of headers the gateway does not forward';
  if (options.alsoRefuse?.some((refused) => refused.toLowerCase() === lower))
    return 'is set by the gateway, not by the caller';
  return undefined;
}

/** Whether a header value is one line of allowed characters. */
function isAllowedHeaderValue(value: string): boolean {
  return FIELD_VALUE.test(value);
}

/**
 * Throws `header_refused` (with `field`) when the name is transport-managed or
 * malformed, or the value holds control characters.
 */
export function assertHeaderAllowed(
  name: string,
  value: string,
  field: string,
  options: HeaderRuleOptions = {},
): void {
  const why = whyHeaderNameRefused(name, options);
  if (why !== undefined)
    throw new GatewayError('header_refused', `header ${safeName(name)} ${why}; remove it`, {
      field,
    });
  if (!isAllowedHeaderValue(value))
    throw new GatewayError(
      'header_refused',
      `the value of header ${safeName(name)} holds a line break or control character; send one line of text`,
      { field },
    );
}

/** A name that failed the token check may itself hold control characters; show it escaped. */
function safeName(name: string): string {
  return TOKEN.test(name) ? name : JSON.stringify(name);
}
