/**
 * Which era a POST belongs to, from its body first (2026-07-28
 * `basic/versioning`, "A dual-era server selects its behavior from how the
 * client opens"), with the MCP SDK's classification rules and none of its
 * per-request schema parsing:
 *
 * - a request whose `_meta` names a protocol version is modern, whatever its
 *   method (a modern `initialize` is then a method the era does not have);
 * - `initialize` without one opens a legacy session, and may not come with a
 *   modern `MCP-Protocol-Version` header;
 * - a request without one, under a modern `MCP-Protocol-Version` header, is a
 *   malformed modern request (its `_meta` is missing);
 * - everything else (session traffic, batches, replies to the server's
 *   requests) is legacy. A batch may not hold a modern request.
 */
import { GatewayError } from '../../base/errors.ts';
import {
  type HeaderBag,
  headerValue,
  METHOD_HEADER,
  PROTOCOL_VERSION_HEADER,
} from './http-exchange.ts';
import type { IncomingMessage } from './json-rpc.ts';
import { isModernVersion, type McpEra } from './protocol-version.ts';
import { metaProtocolVersion } from './request-meta.ts';
import { mismatch } from './standard-headers.ts';

/** The era of one classified message, or the refusal of a message no era can serve. */
export function eraOf(message: IncomingMessage, headers: HeaderBag): McpEra {
  if (message.kind !== 'request' && message.kind !== 'notification') return 'legacy';
  const headerVersion = headerValue(headers, PROTOCOL_VERSION_HEADER);
  const headerIsModern = headerVersion !== undefined && isModernVersion(headerVersion);
  const claimed = metaProtocolVersion(message.params);
  if (claimed !== undefined) {
    if (headerVersion !== undefined && typeof claimed === 'string' && headerVersion !== claimed) {
      throw mismatch(
        PROTOCOL_VERSION_HEADER,
        `the body names protocol version ${claimed} but the MCP-Protocol-Version header names ${headerVersion}`,
      );
    }
    const methodHeader = headerValue(headers, METHOD_HEADER);
    if (methodHeader !== undefined && methodHeader !== message.method) {
      throw mismatch(METHOD_HEADER, 'the Mcp-Method header does not match the body');
    }
    return 'modern';
  }
  if (message.kind === 'request' && message.method === 'initialize') {
    if (headerIsModern) {
      throw mismatch(
        PROTOCOL_VERSION_HEADER,
        'an initialize request (the legacy handshake) was sent with a modern MCP-Protocol-Version header',
      );
    }
    return 'legacy';
  }
  return headerIsModern ? 'modern' : 'legacy';
}

/** A batch is legacy (2025-03-26); one that holds a modern request is refused. */
export function checkBatch(messages: readonly IncomingMessage[]): void {
  for (const message of messages) {
    if ('params' in message && metaProtocolVersion(message.params) !== undefined) {
      throw new GatewayError(
        'invalid_request',
        'Invalid Request: a batch may not hold requests of protocol revision 2026-07-28 or later',
      );
    }
  }
}
