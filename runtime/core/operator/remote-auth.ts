/**
 * A remote `oauth` connection's auth setting beyond a person's sign-in
 * (`portcullis connection auth`, `PUT …/connections/<c>/auth`; issue 35):
 *
 * - `clientCredentials`: the connection's shared credential is the
 *   workspace's own client at the upstream's authorization server (client id
 *   and secret, or `private_key_jwt` with a private key, sealed in the
 *   vault); a token is asked for now (so a wrong client is refused here, not
 *   at the first call), and a draft that waited for a sign-in is connected
 *   with it;
 * - `onBehalfOf`: an agent's call for a member (their consent made it)
 *   carries a token exchanged (RFC 8693) for the member's own from their
 *   IdP sign-in, with the connection's `resource` and `audience`;
 * - `idJag`: Enterprise-Managed Authorization, the same call carries a token
 *   the authorization server issued (jwt-bearer) for an ID-JAG the named
 *   identity provider issued for the member's ID token (`--id-jag <idp>`);
 *   a draft that waited for a sign-in has no shared credential to discover
 *   its tools with, so `connectAs` names a member (with a live sign-in at
 *   the provider) whose token, got now and kept nowhere, connects it.
 *
 * The authorization server must list the grant where it lists grants
 * (`oauth_grant_unsupported`). Bad input writes nothing.
 */
import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import type { ClientMaterial } from '../identity/oauth-client/engine-contract.ts';
import { clientCredentialsToken } from '../identity/oauth-client/upstream-grants.ts';
import {
  JWT_BEARER_GRANT,
  SUBJECT_TOKEN_SOURCES,
  TOKEN_EXCHANGE_GRANT,
  type UpstreamDelegation,
} from '../model/delegation.ts';
import { REMOTE_MCP_PROVIDER, type RemoteEndpoint } from '../model/remote.ts';
import { probeEndpoint } from '../sources/remote-mcp/probe.ts';
import { BEARER_FIELD } from '../sources/remote-mcp/remote-headers.ts';
import { upstreamTarget } from '../sources/remote-mcp/upstream-targets.ts';
import { connectionOrThrow, remoteOrThrow } from './connection-lookup.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';
import { pinReady, type RemoteConnectResult } from './remote-connections.ts';
import { signInOrThrow } from './remote-sign-in.ts';

const OFF = 'off';

export const ConnectionAuthSchema = z.strictObject({
  workspace: z.string().min(1),
  connection: z.string().min(1),
  /** Which token of the member's IdP sign-in is exchanged; `off` stops acting on their behalf. */
  onBehalfOf: z.enum([...SUBJECT_TOKEN_SOURCES, OFF]).optional(),
  /** The identity provider whose ID-JAGs the connection redeems (Enterprise-Managed Authorization); `off` stops it. */
  idJag: z.string().min(1).max(200).optional(),
  /** A member whose own token (by the member's setting) connects a draft now; kept nowhere. */
  connectAs: z.string().min(1).max(200).optional(),
  /** RFC 8693 `audience` the exchange asks for (absent: the connection's `resource` only). */
  audience: z.string().min(1).max(2048).optional(),
  /** How the workspace's own client authenticates for the shared credential; `off`: a person's sign-in. */
  clientCredentials: z.enum(['client_secret_basic', 'private_key_jwt', OFF]).optional(),
  /** The client at the upstream's authorization server (kept; the secret or key is write-only). */
  clientId: z.string().min(1).max(512).optional(),
  clientSecret: z.string().min(1).max(4096).optional(),
  /** `private_key_jwt`: the client's private key, a JWK (JSON). */
  clientKey: z.string().min(1).max(8192).optional(),
});

export interface ConnectionAuth {
  connection: string;
  onBehalfOf: { subjectToken: string; audience?: string; idJag?: string } | null;
  clientCredentials: string | null;
  /** A draft connected now with the workspace's own token: its tools, quarantined. */
  connected?: RemoteConnectResult;
}

export async function setConnectionAuth(
  ctx: OperatorContext,
  input: unknown,
): Promise<ConnectionAuth> {
  return attempt(ctx, 'connection.auth', input, async () => {
    const parsed = parseInput(ConnectionAuthSchema, input);
    const flow = signInOrThrow(ctx);
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    const connection = await connectionOrThrow(ctx, workspace.id, parsed.connection);
    const endpoint =
      connection.provider === REMOTE_MCP_PROVIDER
        ? await ctx.store.remoteEndpoints.byConnection(connection.id)
        : undefined;
    const oauth = endpoint?.oauth;
    if (endpoint?.authKind !== 'oauth' || !oauth)
      throw new GatewayError(
        'invalid_input',
        `connection: ${connection.name} has no authorization server (its server publishes no OAuth metadata)`,
        { field: 'connection' },
      );
    const delegation = nextDelegation(oauth.delegation, parsed);
    if (parsed.idJag !== undefined && parsed.idJag !== OFF)
      if (!(await ctx.store.identity.providerByName(parsed.idJag)))
        throw new GatewayError(
          'not_found',
          `idJag: no identity provider is named ${parsed.idJag}`,
          {
            field: 'idJag',
          },
        );
    const idJag = delegation.onBehalf?.idJag !== undefined;
    for (const [wanted, grant, field] of [
      [delegation.onBehalf && !idJag, TOKEN_EXCHANGE_GRANT, 'onBehalfOf'],
      [delegation.onBehalf && idJag, JWT_BEARER_GRANT, 'idJag'],
      [delegation.machine, 'client_credentials', 'clientCredentials'],
    ] as const) {
      const listed = oauth.metadata.grant_types_supported;
      if (wanted && listed !== undefined && !listed.includes(grant))
        throw new GatewayError(
          'oauth_grant_unsupported',
          `${field}: the authorization server of ${connection.name} does not list the ${grant} grant`,
          { field },
        );
    }
    const connectAs =
      parsed.connectAs === undefined
        ? undefined
        : await connectingMember(ctx, parsed.connectAs, workspace.id, delegation);
    const clients = flow.clients(workspace.id, connection.id);
    const client = suppliedClient(parsed, flow.binding(workspace.id, oauth), ctx.now());
    if ((delegation.onBehalf || delegation.machine) && !client && !(await clients.load()))
      throw new GatewayError(
        'oauth_client_required',
        `clientId: connection ${connection.name} has no client at its authorization server yet; give --client-id with --client-secret-env (or --client-key-env for private_key_jwt)`,
        { field: 'clientId' },
      );
    const machineChanged =
      JSON.stringify(delegation.machine) !== JSON.stringify(oauth.delegation?.machine) ||
      client !== undefined;
    const next: RemoteEndpoint = {
      ...endpoint,
      oauth: { ...oauth, delegation },
      updatedAt: ctx.now().toISOString(),
    };
    const material = client ?? (await clients.load())!;
    // The workspace's own token, asked for before anything is kept: a client it refuses writes nothing.
    const machineTokens =
      delegation.machine && machineChanged
        ? await clientCredentialsToken(
            {
              metadata: oauth.metadata,
              client: material,
              resource: oauth.resource,
              sendResource: !oauth.omitResource,
            },
            delegation.machine,
            oauth.scopes,
            flow.context,
          )
        : undefined;
    if (client) await clients.save(client);
    await ctx.store.remoteEndpoints.put(next);
    const tokens = flow.tokens(workspace.id, connection.id, null);
    if (machineTokens) await tokens.save(machineTokens);
    else if (!delegation.machine && oauth.delegation?.machine) await tokens.forget();
    await audit(ctx, ctx.store, {
      action: 'connection.auth',
      workspaceId: workspace.id,
      connectionId: connection.id,
      subject: describe(delegation),
    });
    ctx.remote?.executor.endSessions(connection.id, null);
    const result: ConnectionAuth = {
      connection: connection.name,
      onBehalfOf: delegation.onBehalf ? { ...delegation.onBehalf } : null,
      clientCredentials: delegation.machine?.auth ?? null,
    };
    // A draft is connected with the workspace's own token, or else the named member's (got now,
    // kept nowhere: a refusal leaves the setting made and the draft a draft).
    const draftToken =
      endpoint.draft !== 'sign_in_needed'
        ? undefined
        : (machineTokens?.accessToken ??
          (connectAs === undefined
            ? undefined
            : await memberToken(ctx, next, connection, connectAs, delegation)));
    if (draftToken === undefined) return result;
    // The draft the probe kept: connected now with the workspace's own token (or the member's).
    const remote = remoteOrThrow(ctx);
    const target = upstreamTarget(next, { [BEARER_FIELD]: draftToken });
    const probed = await probeEndpoint(remote.client, remote.http, target, {
      allowPrivateNetworks: remote.allowPrivateNetworks,
      withCredential: true,
    });
    if (probed.kind !== 'ready') return result;
    result.connected = await pinReady(ctx, {
      connection,
      endpoint: next,
      target,
      probed,
      wasDraft: true,
      credential: undefined,
    });
    return result;
  });
}

type Parsed = z.infer<typeof ConnectionAuthSchema>;

/** `connectAs`: the member it names, checked before anything is written. */
async function connectingMember(
  ctx: OperatorContext,
  name: string,
  workspaceId: string,
  delegation: UpstreamDelegation,
): Promise<string> {
  const member = await ctx.store.oauth.members.byName(name);
  if (!member || member.workspaceId !== workspaceId)
    throw new GatewayError('not_found', `connectAs: no member of the workspace is named ${name}`, {
      field: 'connectAs',
    });
  if (!delegation.onBehalf || !ctx.upstreamTokens)
    throw new GatewayError(
      'invalid_input',
      "connectAs: only for a connection that acts on the member's behalf (--id-jag or --on-behalf-of)",
      { field: 'connectAs' },
    );
  return member.id;
}

/** The member's token, as their agents' calls would carry it (not cached). */
async function memberToken(
  ctx: OperatorContext,
  endpoint: RemoteEndpoint,
  connection: { id: string; name: string; workspaceId: string },
  memberId: string,
  delegation: UpstreamDelegation,
): Promise<string> {
  const owner = {
    workspaceId: connection.workspaceId,
    connectionId: connection.id,
    connectionName: connection.name,
    agentId: null,
  };
  const acting = { memberId, agentId: '', clientId: null };
  // connectingMember checked both.
  const tokens = await ctx.upstreamTokens!.onBehalfOnce(
    endpoint,
    owner,
    acting,
    delegation.onBehalf!,
  );
  return tokens.accessToken;
}

function nextDelegation(
  current: UpstreamDelegation | undefined,
  parsed: Parsed,
): UpstreamDelegation {
  const next: UpstreamDelegation = { ...current };
  if (parsed.idJag !== undefined) {
    if (parsed.onBehalfOf !== undefined || parsed.audience !== undefined)
      throw new GatewayError(
        'invalid_input',
        'idJag: an ID-JAG is asked for with the ID token and the authorization server as audience; give it without onBehalfOf or audience',
        { field: 'idJag' },
      );
    if (parsed.idJag === OFF) delete next.onBehalf;
    else next.onBehalf = { subjectToken: 'id_token', idJag: parsed.idJag };
  } else if (parsed.onBehalfOf === OFF) delete next.onBehalf;
  else if (parsed.onBehalfOf !== undefined)
    next.onBehalf = {
      subjectToken: parsed.onBehalfOf,
      ...(parsed.audience !== undefined ? { audience: parsed.audience } : {}),
    };
  else if (parsed.audience !== undefined) {
    if (!next.onBehalf)
      throw new GatewayError(
        'invalid_input',
        "audience: only for a connection that acts on the member's behalf (--on-behalf-of)",
        {
          field: 'audience',
        },
      );
    next.onBehalf = { ...next.onBehalf, audience: parsed.audience };
  }
  if (parsed.clientCredentials === OFF) delete next.machine;
  else if (parsed.clientCredentials !== undefined)
    next.machine = { auth: parsed.clientCredentials };
  return next;
}

/** The client the operator gave, as the vault keeps it; undefined when none was given. */
function suppliedClient(
  parsed: Parsed,
  binding: ClientMaterial['binding'],
  now: Date,
): ClientMaterial | undefined {
  if (parsed.clientId === undefined) {
    if (parsed.clientSecret !== undefined || parsed.clientKey !== undefined)
      throw new GatewayError(
        'invalid_input',
        'clientId: a client secret or key needs its client id',
        {
          field: 'clientId',
        },
      );
    return undefined;
  }
  if (parsed.clientKey !== undefined) {
    let key: unknown;
    try {
      key = JSON.parse(parsed.clientKey);
    } catch {
      key = undefined;
    }
    if (typeof key !== 'object' || key === null || typeof (key as { d?: unknown }).d !== 'string')
      throw new GatewayError('invalid_input', 'clientKey: not a private key in JWK form', {
        field: 'clientKey',
      });
  }
  const secret = parsed.clientKey ?? parsed.clientSecret;
  return {
    clientId: parsed.clientId,
    ...(secret !== undefined ? { clientSecret: secret } : {}),
    tokenEndpointAuthMethod: secret === undefined ? 'none' : 'client_secret_basic',
    source: 'operator',
    binding,
    obtainedAt: now.toISOString(),
  };
}

function describe(delegation: UpstreamDelegation): string {
  const parts: string[] = [];
  if (delegation.onBehalf?.idJag !== undefined) parts.push(`id-jag ${delegation.onBehalf.idJag}`);
  else if (delegation.onBehalf) parts.push(`on-behalf-of ${delegation.onBehalf.subjectToken}`);
  if (delegation.machine) parts.push(`client-credentials ${delegation.machine.auth}`);
  return parts.length === 0 ? 'sign-in only' : parts.join(', ');
}
