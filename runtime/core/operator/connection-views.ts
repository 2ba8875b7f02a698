/**
 * A workspace's connections as an operator sees them: a remote MCP one with
 * its address, what it speaks, its auth kind and header names (never values),
 * and, while no curated definition vouches for it, the `unverified` label
 * with its host, in every listing; an address a curated definition names
 * carries that definition's name instead (a label, nothing more).
 */
import { z } from 'zod';
import type { CuratedRemotes } from '../catalog/curated-remotes.ts';
import type { Connection } from '../model/governance.ts';
import { REMOTE_MCP_PROVIDER, type RemoteEndpoint } from '../model/remote.ts';
import type { SignInReason } from '../model/sign-in.ts';
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
  /** For a browser sign-in (`oauth`): the authorization server, and whether the shared credential works. */
  signIn?: {
    issuer: string;
    scopes: string[];
    omitResource: boolean;
    /** `signed_in`; `sign_in_required` once the server refused the tokens (with `reason`); `not_signed_in`. */
    state: 'signed_in' | 'sign_in_required' | 'not_signed_in';
    reason?: SignInReason;
    /** Members' calls carry a token exchanged for theirs (`connection auth --on-behalf-of`). */
    onBehalfOf?: { subjectToken: string; audience?: string; idJag?: string };
    /** The shared credential is the workspace's own client (`connection auth --client-credentials`). */
    clientCredentials?: string;
  };
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
  return Promise.all(connections.map((connection) => connectionViewOf(ctx, connection)));
}

/** One connection as an operator sees it: a remote MCP one with its remote view. */
export async function connectionViewOf(
  ctx: OperatorContext,
  connection: Connection,
): Promise<ConnectionView> {
  if (connection.provider !== REMOTE_MCP_PROVIDER) return connection;
  const endpoint = await ctx.store.remoteEndpoints.byConnection(connection.id);
  if (!endpoint) return connection;
  const remote = remoteViewOf(endpoint, ctx.catalogs.remotes);
  if (endpoint.oauth) {
    const row = await ctx.store.upstreamOAuth.tokens.get(connection.id, null);
    const reason = row?.signInRequired ?? undefined;
    remote.signIn = {
      issuer: endpoint.oauth.issuer,
      scopes: endpoint.oauth.scopes,
      omitResource: endpoint.oauth.omitResource,
      state: reason ? 'sign_in_required' : row?.sealed ? 'signed_in' : 'not_signed_in',
      ...(reason ? { reason } : {}),
      ...delegationView(endpoint),
    };
  }
  return { ...connection, remote };
}

/** The connection's auth setting beyond a person's sign-in, as listings show it (no secret in it). */
function delegationView(
  endpoint: RemoteEndpoint,
): Pick<NonNullable<RemoteView['signIn']>, 'onBehalfOf' | 'clientCredentials'> {
  const delegation = endpoint.oauth?.delegation;
  return {
    ...(delegation?.onBehalf ? { onBehalfOf: { ...delegation.onBehalf } } : {}),
    ...(delegation?.machine ? { clientCredentials: delegation.machine.auth } : {}),
  };
}
