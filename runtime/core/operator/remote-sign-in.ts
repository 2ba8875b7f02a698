/**
 * Signing a remote MCP connection in and out (`portcullis connection
 * sign-in|sign-out`, `POST …/connections/<c>/sign-in|sign-out`), and what
 * the callback does once the person is back: the tokens are stored, and a
 * draft the probe kept (`sign_in_needed`) is connected with them (its tools
 * discovered and quarantined). An explicit operator sign-in is the only
 * thing that may register a client. Signing out revokes the tokens at the
 * server where it has a revocation endpoint (RFC 7009) and forgets them.
 */
import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import { discover, revokeTokens } from '../identity/oauth-client/upstream-oauth.ts';
import type {
  FinishedSignIn,
  SignInLink,
  UpstreamSignIn,
} from '../identity/oauth-client/upstream-sign-in.ts';
import type { Connection } from '../model/governance.ts';
import { REMOTE_MCP_PROVIDER, type RemoteEndpoint } from '../model/remote.ts';
import { probeEndpoint } from '../sources/remote-mcp/probe.ts';
import { BEARER_FIELD } from '../sources/remote-mcp/remote-headers.ts';
import { upstreamTarget } from '../sources/remote-mcp/upstream-targets.ts';
import { agentOrThrow } from './agents.ts';
import { connectionOrThrow, remoteOrThrow } from './connection-lookup.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';
import { NameSchema } from './names.ts';
import { pinReady, type RemoteConnectResult } from './remote-connections.ts';

const SignInSchema = z.strictObject({
  workspace: z.string().min(1),
  connection: z.string().min(1),
  /** An agent whose personal credential this signs in (its person follows the link). */
  agent: NameSchema.optional(),
  /** Scopes to ask for instead of the discovered ones (space-separated). */
  scope: z.string().min(1).max(1024).optional(),
  /** Leave RFC 8707 `resource` out, for servers that refuse it (Entra); kept on the connection. */
  omitResource: z.boolean().optional(),
  /** A client registered by hand at the authorization server (the secret is write-only). */
  clientId: z.string().min(1).max(512).optional(),
  clientSecret: z.string().min(1).max(4096).optional(),
});

const SignOutSchema = z.strictObject({
  workspace: z.string().min(1),
  connection: z.string().min(1),
  agent: NameSchema.optional(),
});

export interface SignInStarted extends SignInLink {
  connection: string;
  /** The MCP server's host, and the label an unknown server keeps at every step. */
  label: string;
}

export interface SignedOut {
  connection: string;
  /** Whether the server took the revocation (it has a revocation endpoint). */
  revoked: boolean;
}

export function signInOrThrow(ctx: OperatorContext): UpstreamSignIn {
  if (!ctx.upstreamSignIn) throw new TypeError('signing in needs the gateway’s outbound client');
  return ctx.upstreamSignIn;
}

async function oauthEndpointOrThrow(
  ctx: OperatorContext,
  connection: Connection,
): Promise<RemoteEndpoint & { oauth: NonNullable<RemoteEndpoint['oauth']> }> {
  const endpoint =
    connection.provider === REMOTE_MCP_PROVIDER
      ? await ctx.store.remoteEndpoints.byConnection(connection.id)
      : undefined;
  if (endpoint?.authKind !== 'oauth' || endpoint.oauth === null)
    throw new GatewayError(
      'invalid_input',
      `connection: ${connection.name} has no browser sign-in (its server publishes no OAuth metadata)`,
      { field: 'connection' },
    );
  return endpoint as RemoteEndpoint & { oauth: NonNullable<RemoteEndpoint['oauth']> };
}

export async function signIn(ctx: OperatorContext, input: unknown): Promise<SignInStarted> {
  return attempt(ctx, 'connection.sign_in', input, async () => {
    const parsed = parseInput(SignInSchema, input);
    const flow = signInOrThrow(ctx);
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    const connection = await connectionOrThrow(ctx, workspace.id, parsed.connection);
    let endpoint = await oauthEndpointOrThrow(ctx, connection);
    const agent = parsed.agent ? await agentOrThrow(ctx, workspace.id, parsed.agent) : undefined;
    if (parsed.clientSecret !== undefined && parsed.clientId === undefined)
      throw new GatewayError('invalid_input', 'clientId: a client secret needs its client id', {
        field: 'clientId',
      });
    // Discovered again: a server that moved to another authorization server (or
    // resource) is signed in there, with a client bound to it.
    const found = await discover(
      new URL(endpoint.url),
      `Bearer resource_metadata="${endpoint.oauth.resourceMetadataUrl}"`,
      flow.context,
    );
    const oauth = {
      ...endpoint.oauth,
      issuer: found.issuer,
      resource: found.resource,
      resourceMetadataUrl: found.resourceMetadataUrl,
      metadata: found.metadata,
      ...(found.issuer === endpoint.oauth.issuer ? {} : { scopes: found.scopes }),
      omitResource: parsed.omitResource ?? endpoint.oauth.omitResource,
    };
    if (JSON.stringify(oauth) !== JSON.stringify(endpoint.oauth)) {
      endpoint = { ...endpoint, oauth };
      await ctx.store.remoteEndpoints.put({ ...endpoint, updatedAt: ctx.now().toISOString() });
    }
    const started = await flow.start({
      workspaceId: workspace.id,
      connection,
      endpoint,
      agentId: agent?.id ?? null,
      actor: ctx.actor,
      mayRegister: true,
      ...(parsed.scope ? { scopes: parsed.scope.split(' ').filter(Boolean) } : {}),
      ...(parsed.clientId
        ? {
            operatorClient: {
              clientId: parsed.clientId,
              ...(parsed.clientSecret ? { clientSecret: parsed.clientSecret } : {}),
            },
          }
        : {}),
    });
    await audit(ctx, ctx.store, {
      action: 'connection.sign_in',
      workspaceId: workspace.id,
      connectionId: connection.id,
      subject: `${agent ? `agent ${agent.name} at ` : ''}${started.host}`,
    });
    return {
      ...started,
      connection: connection.name,
      label: `unverified server: ${new URL(endpoint.url).host}`,
    };
  });
}

export async function signOut(ctx: OperatorContext, input: unknown): Promise<SignedOut> {
  return attempt(ctx, 'connection.sign_out', input, async () => {
    const parsed = parseInput(SignOutSchema, input);
    const flow = signInOrThrow(ctx);
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    const connection = await connectionOrThrow(ctx, workspace.id, parsed.connection);
    const endpoint = await oauthEndpointOrThrow(ctx, connection);
    const agent = parsed.agent ? await agentOrThrow(ctx, workspace.id, parsed.agent) : undefined;
    const tokens = flow.tokens(workspace.id, connection.id, agent?.id ?? null);
    const held = await tokens.load();
    const client = await flow.clients(workspace.id, connection.id).load();
    let revoked = false;
    if (held && client)
      ({ revoked } = await revokeTokens(
        {
          metadata: endpoint.oauth.metadata,
          client,
          resource: endpoint.oauth.resource,
          sendResource: !endpoint.oauth.omitResource,
        },
        held,
        flow.context,
      ));
    await tokens.forget();
    ctx.remote?.executor.endSessions(connection.id, agent?.id ?? null);
    await audit(ctx, ctx.store, {
      action: 'connection.sign_out',
      workspaceId: workspace.id,
      connectionId: connection.id,
      subject: `${agent ? `agent ${agent.name} ` : ''}${revoked ? 'revoked at the server' : 'forgotten'}`,
    });
    return { connection: connection.name, revoked };
  });
}

/** What the person sees on the callback page. */
export interface SignInOutcome {
  connection: string;
  host: string;
  /** For an agent's personal credential: the agent's name. */
  agent?: string;
  /** A draft connected by this sign-in: its tools, all quarantined until reviewed. */
  connected?: RemoteConnectResult;
  /** Who started it (`member:<id>` from the console, `cli`, `admin:<id>`, `agent:<id>`). */
  startedBy: string;
}

/** The callback, after the person came back: tokens stored, a draft connected with them. */
export async function completeSignIn(
  ctx: OperatorContext,
  query: URLSearchParams,
  cookie: string | undefined,
): Promise<SignInOutcome> {
  const flow = signInOrThrow(ctx);
  let finished: FinishedSignIn;
  try {
    finished = await flow.finish(query, cookie);
  } catch (error) {
    await audit(ctx, ctx.store, {
      action: 'connection.signed_in',
      workspaceId: null,
      decision: 'denied',
      outcome: null,
      reason: error instanceof GatewayError ? error.code : 'internal',
    }).catch(() => {});
    throw error;
  }
  const { signIn: done, tokens } = finished;
  const connection = await ctx.store.connections.byId(done.workspaceId, done.connectionId);
  const endpoint = await ctx.store.remoteEndpoints.byConnection(done.connectionId);
  if (!connection || !endpoint)
    throw new GatewayError('not_found', 'the connection this sign-in was for is gone', {
      field: 'connection',
    });
  const agent = done.agentId
    ? await ctx.store.agents.byId(done.workspaceId, done.agentId)
    : undefined;
  await audit(ctx, ctx.store, {
    action: 'connection.signed_in',
    workspaceId: done.workspaceId,
    connectionId: connection.id,
    actorId: done.actor,
    subject: `${agent ? `agent ${agent.name} at ` : ''}${done.host}`,
  });
  ctx.remote?.executor.endSessions(connection.id, done.agentId);
  const outcome: SignInOutcome = {
    connection: connection.name,
    host: done.host,
    ...(agent ? { agent: agent.name } : {}),
    startedBy: done.actor,
  };
  if (done.agentId !== null || endpoint.draft !== 'sign_in_needed') return outcome;
  // The draft the probe kept: connected now with the new access token.
  const remote = remoteOrThrow(ctx);
  const target = upstreamTarget(endpoint, { [BEARER_FIELD]: tokens.accessToken });
  const probed = await probeEndpoint(remote.client, remote.http, target, {
    allowPrivateNetworks: remote.allowPrivateNetworks,
    withCredential: true,
  });
  if (probed.kind !== 'ready') return outcome;
  outcome.connected = await pinReady(ctx, {
    connection,
    endpoint,
    target,
    probed,
    wasDraft: true,
    credential: undefined,
  });
  return outcome;
}
