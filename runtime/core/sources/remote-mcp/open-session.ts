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
import { withTasks } from '../../mcp/wire/tasks.ts';
import type { RemoteEndpoint } from '../../model/remote.ts';

type Recorded = Pick<RemoteEndpoint, 'transport' | 'revision'>;

/**
 * The wire a caller of `era` is served on (its own era's, where the server
 * has both), and for a caller that declared the tasks extension (`tasks`) a
 * 2025 session of its own that declares it too: a 2026-07-28 request says
 * what its caller declared itself.
 */
export function wireFor(era: McpEra | undefined, endpoint: Recorded, tasks = false): SessionWire {
  const wire =
    era === 'legacy' &&
    endpoint.revision === MODERN_VERSION &&
    endpoint.transport === 'streamable-http'
      ? 'legacy'
      : 'recorded';
  const sessioned = wire === 'legacy' || endpoint.revision !== MODERN_VERSION;
  return tasks && sessioned ? `${wire}-tasks` : wire;
}

export async function openSession(
  client: UpstreamClient,
  target: UpstreamTarget,
  endpoint: Recorded,
  options: ExchangeOptions = {},
  wire: SessionWire = 'recorded',
): Promise<UpstreamSession> {
  if (wire === 'legacy' || wire === 'legacy-tasks') {
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

/** Everything a call's session may relay to an agent (declared when it opens). */
const RELAYED = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };
/** The same, for the callers that take tasks. */
const RELAYED_WITH_TASKS = withTasks(RELAYED);

/**
 * A session for agents' calls. It is shared by every agent with the same
 * credential, so it declares all it may relay; each question is relayed or
 * refused by what the calling agent's client declared.
 */
export async function openCallSession(
  client: UpstreamClient,
  target: UpstreamTarget,
  endpoint: Recorded,
  wire: SessionWire,
): Promise<UpstreamSession> {
  const tasks = wire === 'recorded-tasks' || wire === 'legacy-tasks';
  const session = await openSession(
    client,
    target,
    endpoint,
    { clientCapabilities: tasks ? RELAYED_WITH_TASKS : RELAYED },
    wire,
  );
  if (session.era !== 'modern') {
    // Every level: what reaches the agent is filtered by the level the agent asked for.
    if (session.capabilities?.logging !== undefined)
      await client.request(target, session, 'logging/setLevel', { level: 'debug' }).catch(() => {});
    return session;
  }
  // Nothing to open on 2026-07-28: `server/discover` says what the server serves.
  const hello = await client.discover(target).catch(() => undefined);
  return { ...session, capabilities: hello?.capabilities ?? {} };
}

/** A 401 or 403: the credential's problem, said as it is, whatever the wire. */
function isSignInRefusal(error: unknown): boolean {
  if (!(error instanceof GatewayError) || error.code !== 'mcp_remote_status') return false;
  const status = error.detail?.status;
  return status === 401 || status === 403;
}
