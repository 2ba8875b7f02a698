/**
 * `grant_type=client_credentials` (RFC 6749 §4.4) for a machine client an
 * operator registered: no member, no consent, no refresh token. The token
 * acts as the client's own agent, so what it reaches is that agent's grants
 * (`portcullis grant <agent> …`); its `sub` is the client. `scope` asks for
 * some of the supported scopes (default: the deployment's default scopes),
 * `resource` for one of our endpoints (default `/mcp`).
 */
import type { MachineClient } from '../../model/oauth.ts';
import { parseScope } from '../principals/scopes.ts';
import { signAccessToken } from './access-token.ts';
import { auditOAuth, type OAuthContext } from './oauth-context.ts';
import { OAuthError } from './oauth-error.ts';
import { jsonReply, type OAuthReply } from './oauth-reply.ts';

export const CLIENT_CREDENTIALS = 'client_credentials';

type Form = Readonly<Record<string, string | undefined>>;

export async function clientCredentials(
  ctx: OAuthContext,
  client: MachineClient,
  form: Form,
): Promise<OAuthReply> {
  const resource = resourceOrThrow(ctx, form.resource);
  const scopes = scopesOrThrow(form.scope, ctx.defaultScopes);
  const agent = await ctx.store.agents.byId(client.workspaceId, client.agentId);
  if (agent?.status !== 'active')
    throw new OAuthError('invalid_grant', "an operator has revoked this client's agent");
  const { token, expiresIn } = await signAccessToken(
    {
      issuer: ctx.issuer,
      resource,
      memberId: client.id,
      clientId: client.id,
      scopes,
      workspaceId: client.workspaceId,
      agentId: client.agentId,
    },
    signingKeyOf(ctx),
    ctx.now(),
  );
  await auditOAuth(ctx, {
    action: 'oauth.token.client_credentials',
    actorKind: 'agent',
    actorId: client.agentId,
    workspaceId: client.workspaceId,
    subject: client.id,
  });
  return jsonReply(200, {
    access_token: token,
    token_type: 'Bearer',
    expires_in: expiresIn,
    scope: scopes.join(' '),
  });
}

/** `resource` (RFC 8707): one of our MCP endpoints; unset, `/mcp`. */
export function resourceOrThrow(ctx: OAuthContext, resource: string | undefined): string {
  if (resource === undefined || resource === '') return ctx.resources.default;
  if (ctx.resources.pathOf(resource) === undefined)
    throw new OAuthError('invalid_target', "resource: not one of this gateway's MCP endpoints");
  return resource;
}

/** The scopes asked (all known, at least one), or `fallback` when none is. */
export function scopesOrThrow(scope: string | undefined, fallback: readonly string[]): string[] {
  if (scope === undefined || scope.trim() === '') return [...fallback];
  const parsed = parseScope(scope);
  if ('unknown' in parsed)
    throw new OAuthError('invalid_scope', `scope: ${parsed.unknown} is not supported`);
  if (parsed.scopes.length === 0) throw new OAuthError('invalid_scope', 'scope: (none)');
  return parsed.scopes;
}

/** The signing key; one the master key cannot open is the server's failure, said as RFC 6749 says it. */
export function signingKeyOf(ctx: OAuthContext) {
  try {
    return ctx.keys.current;
  } catch (error) {
    throw new OAuthError('server_error', 'the authorization server cannot sign tokens now', {
      cause: error,
    });
  }
}
