/**
 * A new upstream session on the transport and revision a connection
 * recorded: nothing to open on 2026-07-28, `initialize` on Streamable HTTP,
 * the event stream and `initialize` on HTTP+SSE. A 2025 caller of a server
 * recorded at 2026-07-28 gets a 2025 session when the server still offers
 * one: only there can the server ask the caller mid-call (sampling,
 * elicitation, roots) and take resource subscriptions, as it does for the
 * caller directly.
 */
import { GatewayError } from '../../base/errors.ts';
import type {
  ExchangeOptions,
  UpstreamClient,
  UpstreamSession,
} from '../../mcp/client/upstream-client.ts';
import type { SessionWire } from '../../mcp/client/upstream-sessions.ts';
import type { UpstreamTarget } from '../../mcp/client/upstream-target.ts';
import { type McpEra, MODERN_VERSION } from '../../mcp/wire/protocol-version.ts';
import type { RemoteEndpoint } from '../../model/remote.ts';

type Recorded = Pick<RemoteEndpoint, 'transport' | 'revision'>;

/** The wire a caller of `era` is served on (its own era's, where the server has both). */
export function wireFor(era: McpEra | undefined, endpoint: Recorded): SessionWire {
  return era === 'legacy' &&
    endpoint.revision === MODERN_VERSION &&
    endpoint.transport === 'streamable-http'
    ? 'legacy'
    : 'recorded';
}

export async function openSession(
  client: UpstreamClient,
  target: UpstreamTarget,
  endpoint: Recorded,
  options: ExchangeOptions = {},
  wire: SessionWire = 'recorded',
): Promise<UpstreamSession> {
  if (wire === 'legacy') {
    try {
      return (await client.initialize(target, options)).session;
    } catch (error) {
      // A 2026-07-28-only server: the caller is served statelessly, as every modern caller is.
      if (isSignInRefusal(error)) throw error;
      return { era: 'modern', revision: MODERN_VERSION };
    }
  }
  if (endpoint.revision === MODERN_VERSION) return { era: 'modern', revision: MODERN_VERSION };
  if (endpoint.transport === 'sse') {
    const hello = await client.openSse(target, options);
    if (!hello)
      throw new GatewayError('remote_not_mcp', 'the server no longer offers its HTTP+SSE stream');
    return hello.session;
  }
  return (await client.initialize(target, options)).session;
}

/** A 401 or 403: the credential's problem, said as it is, whatever the wire. */
function isSignInRefusal(error: unknown): boolean {
  if (!(error instanceof GatewayError) || error.code !== 'mcp_remote_status') return false;
  const status = error.detail?.status;
  return status === 401 || status === 403;
}
