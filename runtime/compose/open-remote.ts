/**
 * The gateway's remote MCP parts, wired (constructors only, in the order
 * each needs the one before): the upstream client, then the callers'
 * upstream sessions and who is told as each opens and ends — resource
 * subscriptions, the list-change listener, the sweep of sessions whose
 * connection is gone — and last the executor that forwards calls in them,
 * sharing its held questions with the other replicas.
 */
import type { Config } from '../config/config.ts';
import type { UpstreamTokens } from '../core/identity/oauth-client/upstream-tokens.ts';
import { ListChanges } from '../core/mcp/client/list-changes.ts';
import { UpstreamClient } from '../core/mcp/client/upstream-client.ts';
import { UpstreamSessions } from '../core/mcp/client/upstream-sessions.ts';
import type { GuardedClient } from '../core/outbound/guarded-client.ts';
import type { RevisionWatch } from '../core/pipeline/revision-watch.ts';
import { UpstreamSessionSweep } from '../core/pipeline/session-sweep.ts';
import type { SharedState } from '../core/ports/shared-state/shared-state.ts';
import type { CurrentIdentity } from '../core/sources/remote-mcp/held-credentials.ts';
import { OpenedSessions } from '../core/sources/remote-mcp/opened-sessions.ts';
import type { RemoteDiscovery, RemoteMcp } from '../core/sources/remote-mcp/remote-mcp.ts';
import { RemoteMcpExecutor } from '../core/sources/remote-mcp/remote-mcp-executor.ts';
import type { RemoteValidators } from '../core/sources/remote-mcp/remote-tool-source.ts';
import { ResourceSubscriptions } from '../core/sources/remote-mcp/resource-subscriptions.ts';

/** What discovering a remote server's lists needs: the upstream client over `outbound`. */
export function remoteDiscovery(options: {
  config: Config;
  outbound: GuardedClient;
  validators: RemoteValidators;
  tokens: UpstreamTokens;
}): RemoteDiscovery {
  return {
    http: options.outbound,
    client: new UpstreamClient(options.outbound),
    validators: options.validators,
    tokens: options.tokens,
    allowPrivateNetworks: options.config.allowPrivateNetworks,
  };
}

export interface RemoteCalls {
  remote: RemoteMcp;
  subscriptions: ResourceSubscriptions;
  listChanges: ListChanges;
  sessionSweep: UpstreamSessionSweep;
}

export function wireRemoteCalls(options: {
  config: Config;
  discovery: RemoteDiscovery;
  /** Discovers and pins a connection again: its server said a list changed. */
  refresh: (connectionId: string) => Promise<unknown>;
  revisions: RevisionWatch;
  state: SharedState;
  /** The identity each owner's calls carry now (a session opened with another is retired). */
  currentIdentity: CurrentIdentity;
  report?: ((error: unknown) => void) | undefined;
}): RemoteCalls {
  const { config, discovery, report } = options;
  const { client } = discovery;
  const subscriptions = new ResourceSubscriptions(client);
  // A remote server that says a list changed has it discovered again; any other notification
  // outside a call (a subscribed resource updated) goes to the subscriptions.
  const listChanges = new ListChanges(client, options.refresh, (session, message) =>
    subscriptions.heard(session, message),
  );
  // A session retired because its credential changed stops listening as it is ended.
  const openedSessions = new OpenedSessions({
    client,
    subscriptions,
    ended: (session) => listChanges.stopSession(session),
  });
  const sessions = new UpstreamSessions({ retired: (session) => openedSessions.retired(session) });
  // A connection removed elsewhere (the command, another replica) has its sessions ended here,
  // and so has a session whose credential was rotated there.
  const sessionSweep = new UpstreamSessionSweep({
    revisions: options.revisions,
    sessions,
    client,
    forgotten: (connectionId) => {
      listChanges.stop(connectionId);
      subscriptions.endConnection(connectionId);
    },
    currentIdentity: options.currentIdentity,
    ...(report ? { report } : {}),
  });
  const executor = new RemoteMcpExecutor({
    client,
    sessions,
    openedSessions,
    subscriptions,
    ...(discovery.tokens ? { tokens: discovery.tokens } : {}),
    sessionOpened: (connectionId, target, session) => {
      sessionSweep.opened(session, target);
      listChanges.listen(connectionId, target, session);
    },
    // An agent's answer to a question another replica holds is taken there.
    relay: {
      state: options.state,
      waitMs: config.upstreamDeadlineMs,
      ...(report ? { report } : {}),
    },
  });
  return {
    remote: { ...discovery, sessions, executor },
    subscriptions,
    listChanges,
    sessionSweep,
  };
}
