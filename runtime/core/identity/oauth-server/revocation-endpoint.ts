/**
 * `POST /oauth/revoke` (RFC 7009). A refresh token or an access token of the
 * client revokes its whole family: the refresh tokens stop at once and the
 * access tokens on their next request. Unknown tokens, and tokens of another
 * client, get the same 200 (RFC 7009 §2.2), so the endpoint tells nothing.
 */
import { compactVerify, decodeJwt } from 'jose';
import { sha256Hex } from '../../../../generated/catalog-rules.ts';
import { auditOAuth, type OAuthContext, refusalEvent } from './oauth-context.ts';
import { OAuthError } from './oauth-error.ts';
import { jsonReply, type OAuthReply, oauthErrorReply } from './oauth-reply.ts';

export async function revoke(
  ctx: OAuthContext,
  form: Readonly<Record<string, string | undefined>>,
): Promise<OAuthReply> {
  try {
    const token = form.token;
    const clientId = form.client_id;
    if (!token) throw new OAuthError('invalid_request', 'token: missing');
    if (!clientId)
      throw new OAuthError(
        'invalid_request',
        'client_id: missing (public clients name themselves)',
      );
    const familyId = await familyOf(ctx, token, clientId);
    if (
      familyId !== undefined &&
      (await ctx.store.oauth.tokens.revokeFamily(familyId, ctx.now().toISOString()))
    ) {
      await auditOAuth(ctx, { action: 'oauth.revoke', subject: familyId });
    }
    return jsonReply(200, {});
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    await auditOAuth(ctx, { action: 'oauth.revoke', ...refusalEvent(error) });
    return oauthErrorReply(error);
  }
}

async function familyOf(
  ctx: OAuthContext,
  token: string,
  clientId: string,
): Promise<string | undefined> {
  const refresh = await ctx.store.oauth.tokens.byHash(sha256Hex(token));
  if (refresh) return refresh.family.clientId === clientId ? refresh.family.id : undefined;
  // An access token: only one this server signed, checked before anything is revoked.
  let claims: ReturnType<typeof decodeJwt>;
  try {
    await compactVerify(
      token,
      async (header) => {
        const found = await ctx.keys.publicKeyFor(header.kid);
        if (!found) throw new OAuthError('invalid_request', 'unknown key');
        return found.key;
      },
      { algorithms: ['ES256', 'RS256'] },
    );
    claims = decodeJwt(token);
  } catch {
    return undefined;
  }
  if (
    typeof claims.family !== 'string' ||
    claims.client_id !== clientId ||
    claims.iss !== ctx.issuer
  )
    return undefined;
  const family = await ctx.store.oauth.tokens.family(claims.family);
  return family?.clientId === clientId ? family.id : undefined;
}
