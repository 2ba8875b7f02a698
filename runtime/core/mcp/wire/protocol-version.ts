/**
 * The MCP revisions Portcullis speaks, serving and forwarding alike, in two
 * eras (`basic/versioning` of 2026-07-28), and the transport before them:
 *
 * - legacy: 2025-11-25, 2025-06-18 and 2025-03-26, stateful (an `initialize`
 *   handshake opens a session). These are the SDK's supported versions that
 *   define the Streamable HTTP transport; older ones used HTTP+SSE, which this
 *   endpoint does not serve.
 * - modern: 2026-07-28, stateless (every request carries its version and the
 *   client's capabilities in `_meta`).
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from './spec-names.ts';

export type McpEra = 'legacy' | 'modern';

const FIRST_STREAMABLE_HTTP_VERSION = '2025-03-26';
/** The first revision without JSON-RPC batching. */
const FIRST_VERSION_WITHOUT_BATCHES = '2025-06-18';
/** The first (and so far only) revision of the modern era; revisions are dates, so they compare by code unit. */
export const MODERN_VERSION = '2026-07-28';
/** The transport Streamable HTTP replaced: an event stream and a message endpoint. */
export const HTTP_SSE_VERSION = '2024-11-05';

/** Newest first. */
export const LEGACY_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS.filter(
  (version) => version >= FIRST_STREAMABLE_HTTP_VERSION && version < MODERN_VERSION,
);
export const MODERN_VERSIONS: readonly string[] = [MODERN_VERSION];
/** The newest legacy revision: what a 2025 session is opened with upstream, and answered when a client asks for one we do not speak. */
export const LATEST_LEGACY_VERSION: string = LEGACY_VERSIONS[0]!;

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
  return legacy.has(requested) ? requested : LATEST_LEGACY_VERSION;
}

/** JSON-RPC batches exist in 2025-03-26 only; 2025-06-18 removed them. */
export function allowsBatches(version: string): boolean {
  return version < FIRST_VERSION_WITHOUT_BATCHES;
}
