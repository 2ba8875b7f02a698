/**
 * The custom headers an operator may give a remote MCP connection. Refused:
 * every name the guarded client refuses for any user header (framing,
 * routing, connection management, `Proxy-*`, `Sec-*`, `Authorization`, which
 * the `bearer` auth kind owns), the MCP transport's own headers, malformed
 * names, values with line breaks or control characters, and oversized names,
 * values or sets. Checked where the operator's input arrives and again just
 * before a request goes out. Messages name the header, never its value.
 */
import {
  MCP_TRANSPORT_HEADER_NAMES,
  MCP_TRANSPORT_HEADER_PREFIXES,
} from '../../../../generated/catalog-rules.ts';
import { GatewayError } from '../../base/errors.ts';
import { assertHeaderAllowed, assertHeaderValueAllowed } from '../../outbound/header-rules.ts';

/** What the MCP transport sets itself, refused beside the transport's own (the compiler's rule too). */
const MCP_TRANSPORT = {
  alsoRefuse: MCP_TRANSPORT_HEADER_NAMES,
  alsoRefusePrefixes: MCP_TRANSPORT_HEADER_PREFIXES,
};

export const HEADER_NAME_MAX = 128;
export const HEADER_VALUE_MAX = 8_192;
export const HEADERS_MAX = 20;

/** The field a header's value is sealed under in the vault. */
export function headerField(name: string): string {
  return `header:${name.toLowerCase()}`;
}

/** The vault field of the `bearer` auth kind's key. */
export const BEARER_FIELD = 'bearer';

/** Checks one custom header name (before any value is known): `header_refused` naming `field`. */
export function assertHeaderNameAllowed(name: string, field: string): void {
  if (name.length > HEADER_NAME_MAX)
    throw new GatewayError(
      'header_refused',
      `a header name is longer than ${HEADER_NAME_MAX} characters; shorten it`,
      { field },
    );
  assertHeaderAllowed(name, '', field, MCP_TRANSPORT);
}

/** Checks the `bearer` auth kind's key, sent as `Authorization: Bearer <key>`: `header_refused` naming `field`. */
export function assertBearerKeyAllowed(key: string, field: string): void {
  assertHeaderValueAllowed('Authorization', key, field);
}

/** Checks a whole set of custom headers, names and values. */
export function assertRemoteHeaders(headers: Record<string, string>, field: string): void {
  const names = Object.keys(headers);
  if (names.length > HEADERS_MAX)
    throw new GatewayError(
      'header_refused',
      `at most ${HEADERS_MAX} custom headers; remove ${names.length - HEADERS_MAX}`,
      { field },
    );
  const seen = new Set<string>();
  for (const name of names) {
    const where = `${field}.${name}`;
    assertHeaderNameAllowed(name, where);
    if (seen.has(name.toLowerCase()))
      throw new GatewayError('header_refused', `header ${name} is given twice; keep one`, {
        field: where,
      });
    seen.add(name.toLowerCase());
    const value = headers[name]!;
    if (value === '')
      throw new GatewayError('header_refused', `header ${name} has no value; give one`, {
        field: where,
      });
    if (Buffer.byteLength(value) > HEADER_VALUE_MAX)
      throw new GatewayError(
        'header_refused',
        `the value of header ${name} is longer than ${HEADER_VALUE_MAX} bytes`,
        { field: where },
      );
    assertHeaderAllowed(name, value, where, MCP_TRANSPORT);
  }
}

/**
 * The request headers a connection's sealed credential stands for, checked
 * again as they are about to be sent: `Authorization: Bearer` for the key,
 * each custom header by its name.
 */
export function credentialHeaders(
  credential: Record<string, string> | undefined,
  headerNames: readonly string[],
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (credential === undefined) return headers;
  for (const name of headerNames) {
    const value = credential[headerField(name)];
    if (value !== undefined) headers[name] = value;
  }
  assertRemoteHeaders(headers, 'headers');
  const bearer = credential[BEARER_FIELD];
  if (bearer !== undefined) {
    assertBearerKeyAllowed(bearer, 'credential');
    headers.authorization = `Bearer ${bearer}`;
  }
  return headers;
}
