/**
 * `portcullis idp sync <member>`: the member's groups read again at once,
 * without the person, with the refresh token the IdP gave at their last
 * sign-in (kept sealed under the master key): a refresh token grant, the ID
 * token it answers with checked as a sign-in's is (`iss`, `aud`, `azp`,
 * expiry, signature; the same `sub`), then the groups applied as at a
 * sign-in. When the IdP refuses the refresh (the person was disabled or
 * signed out there), everything the groups gave is taken back. The rotated
 * refresh token replaces the old one, and the fresh ID token (with the
 * groups the IdP says now) the subject token a connection acting on the
 * member's behalf exchanges. Either way the member is touched: every
 * upstream token exchanged for them before is out of every replica's reach
 * (`member-epoch.ts`), so a group removed at the IdP does not live on in a
 * cached upstream token.
 */
import * as oauth from 'oauth4webapi';
import { GatewayError } from '../../base/errors.ts';
import type { Member } from '../../model/oauth.ts';
import { applyGroups } from './idp-groups.ts';
import { failed, keepRefreshToken, keepSubjectTokens, refreshPlace } from './idp-sign-in.ts';
import type { OAuthContext } from './oauth-context.ts';

export interface IdpSync {
  provider: string;
  /** `synced`: groups read again; `refused`: the IdP refused, the groups' grants and role taken back. */
  outcome: 'synced' | 'refused';
  member: Member;
}

export async function syncIdpMember(ctx: OAuthContext, member: Member): Promise<IdpSync[]> {
  const results: IdpSync[] = [];
  for (const identity of await ctx.store.identity.identitiesOf(member.id)) {
    const provider = await ctx.store.identity.providerByName(identity.providerName);
    if (!provider || provider.issuer !== identity.issuer || provider.groupsClaim === null) continue;
    const sealed = await ctx.store.identity.refreshToken(identity.issuer, identity.subject);
    if (sealed === null)
      throw new GatewayError(
        'idp_sign_in_failed',
        'the IdP gave no refresh token: the member signs in again',
        {
          detail: { provider: provider.name, step: 'sync_no_refresh_token' },
        },
      );
    const token = ctx.vault.openAt(refreshPlace(identity.issuer, identity.subject), sealed);
    const { metadata, client, options } = await ctx.idps.peer(provider);
    const response = await oauth.refreshTokenGrantRequest(
      metadata,
      client,
      oauth.ClientSecretBasic(ctx.idps.secretOf(provider)),
      token,
      options,
    );
    let claims: oauth.IDToken | undefined;
    let result: oauth.TokenEndpointResponse;
    try {
      result = await oauth.processRefreshTokenResponse(metadata, client, response);
      await oauth.validateApplicationLevelSignature(metadata, response, options);
      claims = oauth.getValidatedIdTokenClaims(result);
    } catch (error) {
      if (!(error instanceof oauth.ResponseBodyError)) return failed(ctx, provider, 'sync', error);
      // The IdP refuses: nothing its groups gave stays, and no connection acts on the person's behalf.
      await ctx.store.identity.setRefreshToken(identity.issuer, identity.subject, null);
      await ctx.store.identity.setSubjectTokens(identity.issuer, identity.subject, null);
      const now = await applyGroups(ctx, provider, member, {});
      results.push({ provider: provider.name, outcome: 'refused', member: now });
      member = now;
      continue;
    }
    if (!claims || claims.iss !== identity.issuer || claims.sub !== identity.subject)
      return failed(ctx, provider, 'sync_id_token');
    if (result.refresh_token !== undefined)
      await keepRefreshToken(ctx, identity.issuer, identity.subject, result.refresh_token);
    await keepSubjectTokens(ctx, claims, result);
    member = await applyGroups(ctx, provider, member, claims);
    results.push({ provider: provider.name, outcome: 'synced', member });
  }
  await ctx.store.oauth.members.touch(member.id, ctx.now().toISOString());
  return results;
}
