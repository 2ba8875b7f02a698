/**
 * What remote MCP connections need at run time, made once per gateway: the
 * upstream client over the guarded outbound client, the upstream sessions,
 * the executor that forwards calls, and the input-schema validators.
 */

import { UpstreamClient } from '../../mcp/client/upstream-client.ts';
import { UpstreamSessions } from '../../mcp/client/upstream-sessions.ts';
import type { GuardedClient } from '../../outbound/guarded-client.ts';
import { RemoteMcpExecutor } from './remote-mcp-executor.ts';
import { RemoteValidators } from './remote-tool-source.ts';

export interface RemoteMcp {
  readonly http: GuardedClient;
  readonly client: UpstreamClient;
  readonly sessions: UpstreamSessions;
  readonly executor: RemoteMcpExecutor;
  readonly validators: RemoteValidators;
  /** The development policy: plain http, loopback and private networks allowed. */
  readonly allowPrivateNetworks: boolean;
}

export function createRemoteMcp(
  http: GuardedClient,
  options: { allowPrivateNetworks: boolean; validators?: RemoteValidators },
): RemoteMcp {
  const client = new UpstreamClient(http);
  const sessions = new UpstreamSessions();
  return {
    http,
    client,
    sessions,
    executor: new RemoteMcpExecutor(client, sessions),
    validators: options.validators ?? new RemoteValidators(),
    allowPrivateNetworks: options.allowPrivateNetworks,
  };
}
