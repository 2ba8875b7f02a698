/**
 * Which request headers a user (today a catalog header parameter) may set. The transport owns framing, routing,
 * connection management and credentials; those names are refused, and so is
 * any value the HTTP layer would have to split or reject. Messages name the
 * header, never its value (a value may be a credential).
 */
import { HEADER_NAME_TOKEN, headerNameRefusal } from '../../../generated/catalog-rules.ts';
import { GatewayError } from '../base/errors.ts';

/** Visible ASCII, space and obs-text: no control characters (CR, LF, NUL, tab, DEL, C1). */
const FIELD_VALUE = /^[\x20-\x7e\xa0-\xff]*$/;

export interface HeaderRuleOptions {
  /** More names to refuse in this context (any case), e.g. `content-type` where a body builder owns it. */
  alsoRefuse?: readonly string[];
  /** More prefixes to refuse in this context (lower case), e.g. the MCP transport's `mcp-param-`. */
  alsoRefusePrefixes?: readonly string[];
}

/** Why a header name may not be set by a user, or undefined when it may (the catalog rules' one rule). */
export function whyHeaderNameRefused(
  name: string,
  options: HeaderRuleOptions = {},
): string | undefined {
  const refusal = headerNameRefusal(name, {
    ...(options.alsoRefuse ? { names: options.alsoRefuse } : {}),
    ...(options.alsoRefusePrefixes ? { prefixes: options.alsoRefusePrefixes } : {}),
  });
  switch (refusal) {
    case 'malformed':
      return 'is not a valid header name';
    case 'managed':
      return 'is set by the gateway, not by the caller';
    case 'family':
      return 'is in a family of headers the gateway does not forward';
    case undefined:
      return undefined;
  }
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
  assertHeaderValueAllowed(name, value, field);
}

/**
 * Throws `header_refused` (with `field`) when a value, whatever header it is
 * for (the gateway's own `Authorization` too), holds a line break or control
 * character. Such a value is refused, never trimmed into shape.
 */
export function assertHeaderValueAllowed(name: string, value: string, field: string): void {
  if (!isAllowedHeaderValue(value))
    throw new GatewayError(
      'header_refused',
      `the value of header ${safeName(name)} holds a line break or control character; send one line of text`,
      { field },
    );
}

/** A name that failed the token check may itself hold control characters; show it escaped. */
function safeName(name: string): string {
  return HEADER_NAME_TOKEN.test(name) ? name : JSON.stringify(name);
}
