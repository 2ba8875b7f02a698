/**
 * The MCP revisions this endpoint speaks, in two eras (`basic/versioning` of
 * 2026-07-28):
 *
 * - legacy: 2025-11-25, 2025-06-18 and 2025-03-26, stateful (an `initialize`
 *   handshake opens a session). These are the SDK's supported versions that
 *   define the Streamable HTTP transport; older ones used HTTP+SSE, which this
 *   endpoint does not serve.
 * - modern: 2026-07-28, stateless (every request carries its version and the
 *   client's capabilities in `_meta`).
 */
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

export type McpEra = 'legacy' | 'modern';

const FIRST_STREAMABLE_HTTP_VERSION = '2025-03-26';
/** The first revision without JSON-RPC batching. */
const FIRST_VERSION_WITHOUT_BATCHES = '2025-06-18';
/** The first revision of the modern era; revisions are dates, so they compare by code unit. */
const FIRST_MODERN_VERSION = '2026-07-28';

/** Newest first. */
export const LEGACY_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS.filter(
  (version) => version >= FIRST_STREAMABLE_HTTP_VERSION && version < FIRST_MODERN_VERSION,
);
export const MODERN_VERSIONS: readonly string[] = [FIRST_MODERN_VERSION];

const legacy = new Set(LEGACY_VERSIONS);
const modern = new Set(MODERN_VERSIONS);

export function isLegacyVersion(version: string): boolean {
  return legacy.has(version);
}

export function isModernVersion(version: string): boolean {
  return modern.has(version);
}

/** The client's legacy version when we speak it, otherwise our latest legacy one (the client then decides). */
export function negotiateLegacyVersion(requested: string): string {
  return legacy.has(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/** JSON-RPC batches exist in 2025-03-26 only; 2025-06-18 removed them. */
export function allowsBatches(version: string): boolean {
  return version < FIRST_VERSION_WITHOUT_BATCHES;
}
