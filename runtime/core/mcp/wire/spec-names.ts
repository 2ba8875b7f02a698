/**
 * The MCP specification's names the gateway reads and writes (the `_meta`
 * keys, the protocol versions the 2025 wires negotiate), spelled as the SDK
 * spells them. They are here rather than imported because the SDK's module
 * builds its hundreds of zod schemas as it loads, a cost a start should not
 * pay for a few strings; the SDK is loaded where its code is used (the first
 * `initialize`, the first request state). A test checks each against the
 * SDK's export (test/runtime/core/mcp/wire/spec-names.test.ts).
 */

export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo';
export const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId';
export const LOG_LEVEL_META_KEY = 'io.modelcontextprotocol/logLevel';
export const TRACEPARENT_META_KEY = 'traceparent';
export const TRACESTATE_META_KEY = 'tracestate';

/** Newest first, as the SDK lists them. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];
