/**
 * The MCP revisions this endpoint speaks: the SDK's supported versions that
 * define the Streamable HTTP transport (2025-03-26 and later). Older revisions
 * used the HTTP+SSE transport, which this endpoint does not serve.
 */
import {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';

const FIRST_STREAMABLE_HTTP_VERSION = '2025-03-26';
/** The first revision without JSON-RPC batching. */
const FIRST_VERSION_WITHOUT_BATCHES = '2025-06-18';

/** Newest first, as the SDK lists them. Date strings compare by code unit. */
const ENDPOINT_PROTOCOL_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS.filter(
  (version) => version >= FIRST_STREAMABLE_HTTP_VERSION,
);

const supported = new Set(ENDPOINT_PROTOCOL_VERSIONS);

export function isSupportedProtocolVersion(version: string): boolean {
  return supported.has(version);
}

/** The client's version when we speak it, otherwise our latest (the client then decides). */
export function negotiateProtocolVersion(requested: string): string {
  return supported.has(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/** JSON-RPC batches exist in 2025-03-26 only; 2025-06-18 removed them. */
export function allowsBatches(version: string): boolean {
  return version < FIRST_VERSION_WITHOUT_BATCHES;
}
