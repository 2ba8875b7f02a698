/**
 * The modern wire's request headers (2026-07-28 Streamable HTTP, "Request
 * Metadata"): `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` mirror the
 * body so intermediaries can route on them, and a server that reads the body
 * must refuse a request whose headers are missing or disagree with it
 * (`header_mismatch`, -32020, 400). `Mcp-Name` may carry its value in the
 * Base64 sentinel form `=?base64?…?=`. The endpoint checks them; the
 * forwarding client writes them.
 */
import { GatewayError } from '../../base/errors.ts';
import {
  type HeaderBag,
  headerValue,
  METHOD_HEADER,
  NAME_HEADER,
  PROTOCOL_VERSION_HEADER,
} from './http-exchange.ts';

/**
 * The methods whose `Mcp-Name` mirrors `params.name`, `params.uri` or (the
 * tasks extension, so a balancer can send every request of a task to where
 * it lives) `params.taskId`.
 */
const NAMED: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

const SENTINEL = /^=\?base64\?((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)\?=$/;
/** Visible ASCII, space and tab (RFC 9110 field values). */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;

export function checkStandardHeaders(
  headers: HeaderBag,
  method: string,
  params: Record<string, unknown> | undefined,
  protocolVersion: string,
): void {
  const version = headerValue(headers, PROTOCOL_VERSION_HEADER);
  if (version !== protocolVersion) {
    throw mismatch(
      PROTOCOL_VERSION_HEADER,
      version === undefined
        ? 'the MCP-Protocol-Version header is required'
        : `MCP-Protocol-Version header value '${printable(version)}' does not match _meta value '${printable(protocolVersion)}'`,
    );
  }
  const sentMethod = headerValue(headers, METHOD_HEADER);
  if (sentMethod !== method) {
    throw mismatch(
      METHOD_HEADER,
      sentMethod === undefined
        ? 'the Mcp-Method header is required'
        : `Mcp-Method header value '${printable(sentMethod)}' does not match body value '${printable(method)}'`,
    );
  }
  if (NAMED[method] === undefined) return;
  const sentName = headerValue(headers, NAME_HEADER);
  if (sentName === undefined)
    throw mismatch(NAME_HEADER, `the Mcp-Name header is required for ${method}`);
  const name = decodeHeaderValue(sentName);
  const bodyName = nameOf(method, params);
  if (name === undefined || name !== bodyName) {
    throw mismatch(
      NAME_HEADER,
      `Mcp-Name header value '${printable(sentName)}' does not match body value '${printable(String(bodyName))}'`,
    );
  }
}

/**
 * The headers that mirror a modern request's body (lowercase names): its
 * method, and for a named method (`tools/call`, `prompts/get`,
 * `resources/read`, `tasks/*`) the name it names, when that is a string.
 */
export function mirroredHeaders(
  method: string,
  params: Record<string, unknown> | undefined,
): Record<string, string> {
  const headers: Record<string, string> = { [METHOD_HEADER]: method };
  const name = nameOf(method, params);
  if (typeof name === 'string') headers[NAME_HEADER] = encodeHeaderValue(name);
  return headers;
}

/** What `Mcp-Name` mirrors for `method` (`params.name`, `.uri` or `.taskId`); undefined for an unnamed method. */
function nameOf(method: string, params: Record<string, unknown> | undefined): unknown {
  const source = NAMED[method];
  return source === undefined ? undefined : params?.[source];
}

/**
 * A header value as sent: the value itself when it is visible ASCII without
 * edge spaces and does not look like the sentinel form (which a reader would
 * decode), else the Base64 sentinel form.
 */
export function encodeHeaderValue(value: string): string {
  const literal =
    /^[\x20-\x7e]*$/.test(value) &&
    value.trim() === value &&
    !(value.startsWith('=?base64?') && value.endsWith('?='));
  return literal ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** A header value as sent or, in the sentinel form, decoded; undefined when it is not a valid value. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!FIELD_VALUE.test(value)) return undefined;
  const sentinel = SENTINEL.exec(value);
  // The markers without valid Base64 between them are a broken encoding; anything else is a literal.
  if (!sentinel) return value.startsWith('=?base64?') && value.endsWith('?=') ? undefined : value;
  const decoded = Buffer.from(sentinel[1]!, 'base64');
  const text = decoded.toString('utf8');
  // Not UTF-8 (a replacement character that was not sent) is not a value.
  return Buffer.from(text, 'utf8').equals(decoded) ? text : undefined;
}

/** A header that disagrees with the body: `header_mismatch`, naming the header. */
export function mismatch(header: string, message: string): GatewayError {
  return new GatewayError('header_mismatch', `Header mismatch: ${message}`, { field: header });
}

/** A value safe to quote in a message: short, without controls. */
function printable(value: string): string {
  const clean = value.replace(/[\p{Cc}]/gu, '?');
  return clean.length > 80 ? `${clean.slice(0, 77)}...` : clean;
}
