/**
 * What remote MCP connections need at run time, made once per gateway: the
 * upstream client over the guarded outbound client, the input-schema
 * validators and the signed-in connections' access tokens (enough to
 * discover and pin a server's lists), and the callers' upstream sessions
 * with the executor that forwards calls in them.
 */

import type { UpstreamTokens } from '../../identity/oauth-client/upstream-tokens.ts';
import { UpstreamClient } from '../../mcp/client/upstream-client.ts';
import { UpstreamSessions } from '../../mcp/client/upstream-sessions.ts';
import type { GuardedClient } from '../../outbound/guarded-client.ts';
import { OpenedSessions } from './opened-sessions.ts';
import { RemoteMcpExecutor } from './remote-mcp-executor.ts';
import { RemoteValidators } from './remote-tool-source.ts';
import { ResourceSubscriptions } from './resource-subscriptions.ts';

/** What discovering and pinning a remote server's lists needs: no caller's session. */
export interface RemoteDiscovery {
  readonly http: GuardedClient;
  readonly client: UpstreamClient;
  readonly validators: RemoteValidators;
  /** The access tokens of signed-in (`oauth`) connections; without them their requests go out bare. */
  readonly tokens?: UpstreamTokens | undefined;
  /** The development policy: plain http, loopback and private networks allowed. */
  readonly allowPrivateNetworks: boolean;
}

export interface RemoteMcp extends RemoteDiscovery {
  readonly sessions: UpstreamSessions;
  readonly executor: RemoteMcpExecutor;
}

/**
 * The remote MCP parts on their own, nothing listening on their sessions
 * and no other replica to share held questions with (the gateway wires its
 * own in `runtime/compose/open-remote.ts`).
 */
export function createRemoteMcp(
  http: GuardedClient,
  options: { allowPrivateNetworks: boolean; validators?: RemoteValidators },
): RemoteMcp {
  const client = new UpstreamClient(http);
  const subscriptions = new ResourceSubscriptions(client);
  const openedSessions = new OpenedSessions({ client, subscriptions });
  const sessions = new UpstreamSessions({ retired: (session) => openedSessions.retired(session) });
  return {
    http,
    client,
    sessions,
    executor: new RemoteMcpExecutor({ client, sessions, openedSessions, subscriptions }),
    validators: options.validators ?? new RemoteValidators(),
    allowPrivateNetworks: options.allowPrivateNetworks,
  };
}
