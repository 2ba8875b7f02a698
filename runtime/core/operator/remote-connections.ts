/**
 * Connecting a remote MCP server by its address (`portcullis connect-url`,
 * `POST …/remote-connections`, and `import`, which normalises a pasted
 * `mcpServers` entry into the same input). The probe decides (seed 000):
 * nothing needed → its tools are discovered and pinned, every one
 * quarantined until reviewed; a sign-in or a key needed → a draft connection
 * is kept, and connecting again with the same name (or address) carries it
 * on. Header values are sealed in the vault; only names are kept and shown.
 */
import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import type { CuratedOffer } from '../catalog/curated-remotes.ts';
import { newId } from '../governance/keys.ts';
import { assertNameFree, firstFreeName } from '../governance/reserved-names.ts';
import { CONNECTION_NAME_PATTERN } from '../governance/tool-names.ts';
import { discover } from '../identity/oauth-client/upstream-oauth.ts';
import type { UpstreamTarget } from '../mcp/client/upstream-target.ts';
import type { Connection } from '../model/governance.ts';
import {
  REMOTE_MCP_PROVIDER,
  type RemoteAuthKind,
  type RemoteEndpoint,
  type RemoteOAuth,
} from '../model/remote.ts';
import { endpointUrlOrThrow } from '../sources/remote-mcp/endpoint-url.ts';
import { connectionNameOf } from '../sources/remote-mcp/mcp-servers-config.ts';
import { type ProbeResult, probeEndpoint } from '../sources/remote-mcp/probe.ts';
import { recordFeatures } from '../sources/remote-mcp/record-features.ts';
import {
  assertBearerKeyAllowed,
  assertRemoteHeaders,
  BEARER_FIELD,
  headerField,
} from '../sources/remote-mcp/remote-headers.ts';
import type { RemoteMcp } from '../sources/remote-mcp/remote-mcp.ts';
import { upstreamTarget } from '../sources/remote-mcp/upstream-targets.ts';
import { remoteOrThrow } from './connection-lookup.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';
import { NameSchema } from './names.ts';
import { applyPinned, discoverPinnable, type RefreshReport } from './remote-refresh.ts';

export const ConnectUrlSchema = z.strictObject({
  workspace: z.string().min(1),
  url: z.string().min(1),
  name: NameSchema.optional(),
  /** A key sent as `Authorization: Bearer` (write-only). */
  token: z.string().min(1).optional(),
  /** Custom headers by name (values write-only). */
  headers: z.record(z.string(), z.string()).optional(),
});

export type RemoteNext = 'review' | 'sign_in' | 'credential';

export interface RemoteConnectResult {
  connection: Connection;
  endpoint: RemoteEndpoint;
  /** What the operator does next: review the tools, sign in (the OAuth issue), or give a key or headers. */
  next: RemoteNext;
  tools: RefreshReport | undefined;
  /** Where a sign-in would start, when the server publishes it. */
  authorizationServers?: string[];
  /**
   * The curated definition the URL matched, offered beside the generic route
   * (its name, documentation, sign-in hints, support text); absent for an
   * unverified server. The connection is the same either way.
   */
  curated?: CuratedOffer;
}

/** Where a name may be derived from when the operator gives none. */
export interface NameSources {
  /** The key of a pasted `mcpServers` entry (`"remote-mcp": {…}`). */
  pastedKey?: string;
}

export async function connectUrl(
  ctx: OperatorContext,
  input: unknown,
  sources: NameSources = {},
): Promise<RemoteConnectResult> {
  return attempt(ctx, 'connection.create', input, async () => {
    const parsed = parseInput(ConnectUrlSchema, input);
    const remote = remoteOrThrow(ctx);
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    const url = endpointUrlOrThrow(parsed.url, remote);
    if (parsed.headers !== undefined) assertRemoteHeaders(parsed.headers, 'headers');
    if (parsed.token !== undefined) assertBearerKeyAllowed(parsed.token, 'token');
    // A key (sent as Authorization: Bearer) may come with custom headers beside it.
    const authKind: RemoteAuthKind =
      parsed.token !== undefined ? 'bearer' : parsed.headers !== undefined ? 'headers' : 'none';
    const credential: Record<string, string> = {};
    if (parsed.token !== undefined) credential[BEARER_FIELD] = parsed.token;
    for (const [name, value] of Object.entries(parsed.headers ?? {}))
      credential[headerField(name)] = value;
    const headerNames = Object.keys(parsed.headers ?? {});

    const curated = ctx.catalogs.remotes.offer(url.href);
    const offered = curated ? { curated } : {};
    const claimant = { provider: REMOTE_MCP_PROVIDER, url: url.href };
    if (parsed.name !== undefined) assertNameFree(ctx.catalogs, parsed.name, claimant, 'name');
    // A derived name never takes one that belongs to someone else: the next source is tried.
    const pasted =
      sources.pastedKey === undefined
        ? undefined
        : firstFreeName(ctx.catalogs, claimant, [connectionNameOf(sources.pastedKey)]);
    const draft = await existingDraft(ctx, workspace.id, parsed.name ?? pasted, url.href);
    const name =
      draft?.name ??
      parsed.name ??
      firstFreeName(ctx.catalogs, claimant, [
        pasted,
        curated?.defaults.connectionName,
        nameFromHost(url),
      ]) ??
      FALLBACK_NAME;
    if (!draft && (await ctx.store.connections.byName(workspace.id, name)))
      throw new GatewayError(
        'conflict',
        `workspace ${workspace.name} already has a connection ${name}; choose another with --name`,
        { field: 'name' },
      );
    const now = ctx.now().toISOString();
    const connection: Connection = draft ?? {
      id: newId(),
      workspaceId: workspace.id,
      name,
      provider: REMOTE_MCP_PROVIDER,
      settings: {},
      status: 'pending',
      health: 'unknown',
      failureStreak: 0,
      createdAt: now,
      updatedAt: now,
    };
    const endpoint: RemoteEndpoint = {
      connectionId: connection.id,
      workspaceId: workspace.id,
      url: url.href,
      transport: null,
      revision: null,
      authKind,
      headerNames,
      serverInfo: null,
      features: null,
      draft: null,
      classificationOverrides: {},
      toolsExpireAt: null,
      oauth: null,
      updatedAt: now,
    };
    const target = upstreamTarget(endpoint, authKind === 'none' ? undefined : credential);
    const probed = await probeEndpoint(remote.client, remote.http, target, {
      allowPrivateNetworks: remote.allowPrivateNetworks,
      withCredential: authKind !== 'none',
    });

    if (probed.kind !== 'ready') {
      // A sign-in: what discovery found (every address checked) is kept on the draft.
      const oauth =
        probed.kind === 'sign_in_needed' ? await discoverSignIn(remote, url, probed) : null;
      // Kept as a draft: connecting again with a key, headers or a sign-in carries it on.
      const kept: RemoteEndpoint = {
        ...endpoint,
        transport: 'streamable-http',
        draft: probed.kind,
        ...(oauth ? { authKind: 'oauth' as const, oauth } : {}),
      };
      await ctx.store.transaction(async (tx) => {
        if (!draft) await tx.connections.create(connection);
        await tx.remoteEndpoints.put(kept);
        await audit(ctx, tx, {
          action: draft ? 'connection.update' : 'connection.create',
          workspaceId: workspace.id,
          connectionId: connection.id,
          subject: `${REMOTE_MCP_PROVIDER} ${url.host} (draft: ${probed.kind})`,
        });
      });
      return {
        connection,
        endpoint: kept,
        next: probed.kind === 'sign_in_needed' ? 'sign_in' : 'credential',
        tools: undefined,
        ...(probed.kind === 'sign_in_needed'
          ? { authorizationServers: probed.authorizationServers }
          : {}),
        ...offered,
      };
    }

    const pinned = await pinReady(ctx, {
      connection,
      endpoint,
      target,
      probed,
      wasDraft: draft !== undefined,
      credential: authKind === 'none' ? undefined : credential,
    });
    return { ...pinned, ...offered };
  });
}

export interface ReadyConnection {
  connection: Connection;
  endpoint: RemoteEndpoint;
  target: UpstreamTarget;
  probed: Extract<ProbeResult, { kind: 'ready' }>;
  /** Whether the connection exists already (a draft carried on). */
  wasDraft: boolean;
  /** The key or headers to seal as its shared credential; undefined: none (or a sign-in's tokens). */
  credential: Record<string, string> | undefined;
}

/** A server that answered: its tools discovered and pinned (quarantined), the connection active. */
export async function pinReady(
  ctx: OperatorContext,
  { connection, endpoint, target, probed, wasDraft, credential }: ReadyConnection,
): Promise<RemoteConnectResult> {
  const remote = remoteOrThrow(ctx);
  const url = new URL(endpoint.url);
  const now = ctx.now().toISOString();
  const { hello } = probed;
  const ready: RemoteEndpoint = {
    ...endpoint,
    draft: null,
    transport: probed.transport,
    revision: hello.session.revision,
    serverInfo: hello.serverInfo,
    features: await recordFeatures(
      remote.client,
      target,
      { transport: probed.transport, revision: hello.session.revision },
      hello.capabilities,
    ),
  };
  const active: Connection = { ...connection, status: 'active', health: 'ok', updatedAt: now };
  // The probe's session ends here; calls open their own.
  const discovered = await discoverPinnable(ctx, active, ready, target, hello.session).finally(() =>
    remote.client.close(target, hello.session).catch(() => {}),
  );
  const report = await ctx.store.transaction(async (tx) => {
    if (wasDraft)
      await tx.connections.update(connection.workspaceId, connection.id, {
        status: 'active',
        updatedAt: now,
      });
    else await tx.connections.create(active);
    await tx.credentials.remove(connection.id, null);
    if (credential !== undefined)
      await ctx.vault.put(
        tx,
        { workspaceId: connection.workspaceId, connectionId: connection.id, agentId: null },
        credential,
        now,
      );
    await tx.remoteEndpoints.put(ready);
    await audit(ctx, tx, {
      action: wasDraft ? 'connection.update' : 'connection.create',
      workspaceId: connection.workspaceId,
      connectionId: connection.id,
      subject: `${REMOTE_MCP_PROVIDER} ${url.host}`,
    });
    return applyPinned(ctx, tx, active, ready, discovered);
  });
  remote.executor.endSessions(connection.id);
  return { connection: active, endpoint: ready, next: 'review', tools: report };
}

/** RFC 9728 and RFC 8414 discovery for a server that wants a sign-in (nothing registered yet). */
async function discoverSignIn(
  remote: RemoteMcp,
  url: URL,
  probed: Extract<ProbeResult, { kind: 'sign_in_needed' }>,
): Promise<RemoteOAuth> {
  const found = await discover(url, `Bearer resource_metadata="${probed.resourceMetadataUrl}"`, {
    http: remote.http,
    policy: { allowPrivateNetworks: remote.allowPrivateNetworks },
  });
  return {
    issuer: found.issuer,
    resource: found.resource,
    resourceMetadataUrl: found.resourceMetadataUrl,
    scopes: found.scopes,
    metadata: found.metadata,
    omitResource: false,
  };
}

/** A draft to carry on: the named one, else the only draft with this address. */
async function existingDraft(
  ctx: OperatorContext,
  workspaceId: string,
  name: string | undefined,
  url: string,
): Promise<Connection | undefined> {
  const connections = await ctx.store.connections.list(workspaceId);
  for (const connection of connections) {
    if (connection.provider !== REMOTE_MCP_PROVIDER) continue;
    if (name !== undefined && connection.name !== name) continue;
    const endpoint = await ctx.store.remoteEndpoints.byConnection(connection.id);
    if (endpoint?.draft == null) continue;
    if (name !== undefined || endpoint.url === url) return connection;
  }
  return undefined;
}

/** The name of a remote connection when nothing better can be derived. */
const FALLBACK_NAME = 'remote';

/** `mcp.notion.com` → `notion`; `api.example.co.uk` → `example`; always a valid connection name. */
export function nameFromHost(url: URL): string {
  const labels = url.hostname
    .toLowerCase()
    .split('.')
    .filter((label) => !['mcp', 'api', 'www', ''].includes(label));
  const base = (labels.length > 1 ? labels[labels.length - 2] : labels[0]) ?? 'remote';
  const cleaned = base
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/^[^a-z]+/, '')
    .slice(0, 32);
  return CONNECTION_NAME_PATTERN.test(cleaned) ? cleaned : FALLBACK_NAME;
}
