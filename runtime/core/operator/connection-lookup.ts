/**
 * What an operator verb looks up before it acts, refusing when it is not
 * there: the connection an input names (by name or id, with the nearest name
 * offered), a remote connection's endpoint (not a draft), and the remote MCP
 * machinery (absent where no outbound client runs).
 */
import { GatewayError } from '../base/errors.ts';
import { didYouMean } from '../base/nearest-word.ts';
import type { Connection } from '../model/governance.ts';
import { REMOTE_MCP_PROVIDER, type RemoteEndpoint } from '../model/remote.ts';
import type { RemoteDiscovery, RemoteMcp } from '../sources/remote-mcp/remote-mcp.ts';
import type { OperatorContext } from './context.ts';

/** The connection `ref` names in the workspace, by name or id; `not_found` offers the nearest name. */
export async function connectionOrThrow(
  ctx: OperatorContext,
  workspaceId: string,
  ref: string,
): Promise<Connection> {
  const connection =
    (await ctx.store.connections.byName(workspaceId, ref)) ??
    (await ctx.store.connections.byId(workspaceId, ref));
  if (!connection) {
    const names = (await ctx.store.connections.list(workspaceId)).map((c) => c.name);
    throw new GatewayError(
      'not_found',
      `no connection ${ref} in this workspace${didYouMean(ref, names)}`,
      { field: 'connection' },
    );
  }
  return connection;
}

/** The remote MCP machinery; a caller error where the gateway runs no outbound client. */
export function remoteOrThrow<R extends RemoteDiscovery = RemoteMcp>(ctx: {
  remote?: R | undefined;
}): R {
  if (!ctx.remote) throw new TypeError('remote MCP connections need the gateway’s outbound client');
  return ctx.remote;
}

/** A remote connection's endpoint: `invalid_input` for a native one, `connection_inactive` for a draft. */
export async function endpointOrThrow(
  ctx: OperatorContext,
  connection: Connection,
): Promise<RemoteEndpoint> {
  const endpoint =
    connection.provider === REMOTE_MCP_PROVIDER
      ? await ctx.store.remoteEndpoints.byConnection(connection.id)
      : undefined;
  if (!endpoint)
    throw new GatewayError(
      'invalid_input',
      `connection: ${connection.name} is not a remote MCP connection`,
      {
        field: 'connection',
      },
    );
  if (endpoint.draft !== null)
    throw new GatewayError(
      'connection_inactive',
      `${connection.name} is a draft (${endpoint.draft}): finish it with portcullis connect-url ${endpoint.url} --name ${connection.name}`,
    );
  return endpoint;
}
