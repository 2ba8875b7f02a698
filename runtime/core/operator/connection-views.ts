/**
 * A workspace's connections as an operator sees them: a remote MCP one with
 * its address, what it speaks, its auth kind and header names (never values),
 * and, while no curated definition vouches for it, the `unverified` label
 * with its host, in every listing; an address a curated definition names
 * carries that definition's name instead (a label, nothing more).
 */
import { z } from 'zod';
import type { CuratedRemotes } from '../catalog/curated-remotes.ts';
import type { Connection } from '../governance/model.ts';
import { REMOTE_MCP_PROVIDER, type RemoteEndpoint } from '../remote/remote-model.ts';
import { type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';

export interface RemoteView {
  url: string;
  host: string;
  /** Whether a curated definition names this endpoint. */
  verified: boolean;
  label: string;
  /** The curated definition that names it. */
  curated?: { id: string; name: string; documentationUrl: string };
  transport: RemoteEndpoint['transport'];
  revision: string | null;
  authKind: RemoteEndpoint['authKind'];
  headerNames: string[];
  serverInfo: RemoteEndpoint['serverInfo'];
  draft: RemoteEndpoint['draft'];
}

export type ConnectionView = Connection & { remote?: RemoteView };

export function remoteViewOf(endpoint: RemoteEndpoint, curatedRemotes: CuratedRemotes): RemoteView {
  const host = new URL(endpoint.url).host;
  const curated = curatedRemotes.offer(endpoint.url);
  return {
    url: endpoint.url,
    host,
    ...(curated
      ? {
          verified: true,
          label: `curated: ${curated.name} (${host})`,
          curated: {
            id: curated.id,
            name: curated.name,
            documentationUrl: curated.documentationUrl,
          },
        }
      : { verified: false, label: `unverified server: ${host}` }),
    transport: endpoint.transport,
    revision: endpoint.revision,
    authKind: endpoint.authKind,
    headerNames: endpoint.headerNames,
    serverInfo: endpoint.serverInfo,
    draft: endpoint.draft,
  };
}

export async function connectionViews(
  ctx: OperatorContext,
  input: unknown,
): Promise<ConnectionView[]> {
  const { workspace } = parseInput(z.strictObject({ workspace: z.string().min(1) }), input);
  const connections = await ctx.store.connections.list((await workspaceOrThrow(ctx, workspace)).id);
  return Promise.all(
    connections.map(async (connection) => {
      if (connection.provider !== REMOTE_MCP_PROVIDER) return connection;
      const endpoint = await ctx.store.remoteEndpoints.byConnection(connection.id);
      return endpoint
        ? { ...connection, remote: remoteViewOf(endpoint, ctx.catalogs.remotes) }
        : connection;
    }),
  );
}
