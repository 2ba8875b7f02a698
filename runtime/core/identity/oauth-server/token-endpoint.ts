/**
 * `POST /oauth/token` (RFC 6749 §4.1.3, §6; OAuth 2.1). Public clients
 * (PKCE, no secret):
 *
 * - `authorization_code`: the code is taken once; its client, redirect URI,
 *   PKCE verifier and resource must all match what it was issued for, within
 *   5 minutes. A second use of a code revokes the family its first use
 *   started. The reply: a 15-minute JWT access token and an opaque refresh
 *   token (30 days) that starts a family.
 * - `refresh_token`: rotated on every use; presenting one already rotated
 *   revokes its whole family (someone else has a copy), unless it comes
 *   within seconds of its first use (a concurrent refresh from another tab
 *   or replica, refresh-grace.ts): that one is a plain `invalid_grant`. A
 *   `scope` may narrow what the code granted, never widen it.
 *
 * Machine clients an operator registered authenticate
 * (`client-authentication.ts`) and ask with `client_credentials`
 * (`client-credentials-grant.ts`) or the JWT bearer grant with an ID-JAG
 * (`id-jag-grant.ts`); a public client asking with either is `invalid_client`.
 *
 * Each request is charged to a token bucket of its client and address
 * (`PORTCULLIS_RATE_LIMIT_CLIENT_*`, shared by every replica) before any
 * work: over it, `temporarily_unavailable` (429) with `Retry-After`, audited
 * as `rate_limited`.
 *
 * Every code exchanged deletes the families that expired or were revoked
 * more than a day before, with their refresh tokens.
 *
 * Replies are `no-store`; errors carry RFC 6749's strings and never a token.
 */
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../../../generated/catalog-rules.ts';
import { newId } from '../../governance/keys.ts';
import type { Consent, MachineClient, TokenFamily } from '../../model/oauth.ts';
import { retryAfterSeconds } from '../../ports/shared-state/token-bucket.ts';
import { parseScope } from '../principals/scopes.ts';
import { signAccessToken } from './access-token.ts';
import { isVoidFamily, redeemCode, voidFamily } from './authorization-codes.ts';
import { authenticateClient } from './client-authentication.ts';
import { CLIENT_CREDENTIALS, clientCredentials, signingKeyOf } from './client-credentials-grant.ts';
import { idJagGrant, JWT_BEARER } from './id-jag-grant.ts';
import { auditOAuth, type OAuthContext, refusalEvent } from './oauth-context.ts';
import { OAuthError } from './oauth-error.ts';
import { jsonReply, type OAuthReply, oauthErrorReply } from './oauth-reply.ts';
import { verifierMatches } from './pkce.ts';
import { isConcurrentUse, markFirstUse } from './refresh-grace.ts';

export const REFRESH_TTL_MS = 30 * 86_400_000;
/** A family expired or revoked this long ago is deleted with its refresh tokens. */
const PRUNE_AFTER_MS = 86_400_000;

export type TokenForm = Readonly<Record<string, string | undefined>>;

export async function token(
  ctx: OAuthContext,
  form: TokenForm,
  authorization: string | undefined,
  address: string,
): Promise<OAuthReply> {
  try {
    await chargeTokenRequest(ctx, form.client_id ?? '', address);
    const presenter = await authenticateClient(ctx, form, authorization);
    if (presenter.kind === 'machine') {
      try {
        return await machineGrant(ctx, presenter.client, form);
      } catch (error) {
        // No token came of it: the client's assertion is not used up.
        await presenter.assertion?.release();
        throw error;
      }
    }
    const clientId = required(form, 'client_id');
    switch (form.grant_type) {
      case 'authorization_code':
        return await exchangeCode(ctx, form, clientId);
      case 'refresh_token':
        return await refresh(ctx, form, clientId);
      case undefined:
        throw new OAuthError('invalid_request', 'grant_type: missing');
      case CLIENT_CREDENTIALS:
      case JWT_BEARER:
        throw new OAuthError(
          'invalid_client',
          `${form.grant_type} is for machine clients: authenticate with client_secret_basic or private_key_jwt`,
        );
      default:
        throw new OAuthError(
          'unsupported_grant_type',
          'grant_type: expected authorization_code or refresh_token',
        );
    }
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    await auditOAuth(ctx, { action: 'oauth.token', ...refusalEvent(error) });
    return oauthErrorReply(error);
  }
}

function machineGrant(
  ctx: OAuthContext,
  client: MachineClient,
  form: TokenForm,
): Promise<OAuthReply> {
  switch (form.grant_type) {
    case CLIENT_CREDENTIALS:
      return clientCredentials(ctx, client, form);
    case JWT_BEARER:
      return idJagGrant(ctx, client, form);
    default:
      throw new OAuthError(
        'unsupported_grant_type',
        `grant_type: a machine client asks with ${CLIENT_CREDENTIALS} or ${JWT_BEARER}`,
      );
  }
}

/** Takes a token of the client's bucket at this address; over it, `temporarily_unavailable`. */
async function chargeTokenRequest(ctx: OAuthContext, clientId: string, address: string) {
  if (ctx.tokenRequests === undefined) return;
  // Hashed: a client id may be a long URL, an address is no key to keep in the clear.
  const key = `oauth:rate:token:${sha256Hex(`${clientId}\n${address}`)}`;
  const take = await ctx.state.takeTokens([{ key, rule: ctx.tokenRequests }]);
  if (take.granted) return;
  const seconds = retryAfterSeconds(take.retryAfterMs);
  throw new OAuthError(
    'temporarily_unavailable',
    `too many token requests from this client and address; try again in ${seconds} s`,
    { retryAfterSeconds: seconds },
  );
}

async function exchangeCode(
  ctx: OAuthContext,
  form: TokenForm,
  clientId: string,
): Promise<OAuthReply> {
  const code = required(form, 'code');
  const redirectUri = required(form, 'redirect_uri');
  const verifier = required(form, 'code_verifier');
  const familyId = newId();
  const redemption = await redeemCode(ctx.state, code, familyId);
  if (redemption.kind === 'replayed') {
    if (redemption.familyId !== undefined) {
      await voidFamily(ctx.state, redemption.familyId);
      const revoked = await ctx.store.oauth.tokens.revokeFamily(
        redemption.familyId,
        ctx.now().toISOString(),
      );
      if (revoked)
        await auditOAuth(ctx, {
          action: 'oauth.code.replay',
          decision: 'denied',
          outcome: null,
          reason: 'unauthenticated',
          subject: redemption.familyId,
        });
    }
    throw new OAuthError('invalid_grant', 'code: already used; the tokens it gave are revoked');
  }
  if (redemption.kind === 'unknown')
    throw new OAuthError('invalid_grant', 'code: unknown or expired');
  const { grant } = redemption;
  if (grant.expiresAt <= ctx.now().getTime())
    throw new OAuthError('invalid_grant', 'code: expired');
  if (grant.clientId !== clientId)
    throw new OAuthError('invalid_grant', 'code: issued to another client');
  if (grant.redirectUri !== redirectUri) {
    throw new OAuthError('invalid_grant', 'redirect_uri: not the one the code was issued for');
  }
  if (!verifierMatches(verifier, grant.codeChallenge)) {
    throw new OAuthError('invalid_grant', 'code_verifier: does not match the code_challenge');
  }
  if (form.resource !== undefined && form.resource !== grant.resource) {
    throw new OAuthError('invalid_target', 'resource: not the one the code was issued for');
  }
  const consent = await liveConsent(ctx, grant.consentId);
  const now = ctx.now();
  const family: TokenFamily = {
    id: familyId,
    consentId: consent.id,
    clientId,
    scopes: grant.scopes,
    resource: grant.resource,
    status: 'active',
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + REFRESH_TTL_MS).toISOString(),
    revokedAt: null,
  };
  const refreshToken = newRefreshToken();
  await ctx.store.oauth.tokens.start(family, {
    tokenHash: sha256Hex(refreshToken),
    familyId,
    scopes: grant.scopes,
    status: 'active',
    createdAt: now.toISOString(),
  });
  if (await isVoidFamily(ctx.state, familyId)) {
    // The code was replayed while this use was under way: nothing it gave may live.
    await ctx.store.oauth.tokens.revokeFamily(familyId, now.toISOString());
    throw new OAuthError('invalid_grant', 'code: already used; the tokens it gave are revoked');
  }
  // Each new family clears away the dead ones, so rows never pile up (no timer to keep).
  await ctx.store.oauth.tokens.prune(new Date(now.getTime() - PRUNE_AFTER_MS).toISOString());
  const reply = await tokenReply(ctx, consent, family, grant.scopes, refreshToken, grant.memberId);
  await auditOAuth(ctx, { action: 'oauth.token.code', ...asAgent(consent), subject: familyId });
  return reply;
}

async function refresh(ctx: OAuthContext, form: TokenForm, clientId: string): Promise<OAuthReply> {
  const presented = required(form, 'refresh_token');
  const found = await ctx.store.oauth.tokens.byHash(sha256Hex(presented));
  if (!found) throw new OAuthError('invalid_grant', 'refresh_token: unknown');
  const { token: current, family } = found;
  const at = ctx.now();
  // A token in another client's hands: someone has a copy.
  if (family.clientId !== clientId) return reused(ctx, family.id, at);
  if (current.status === 'rotated') return rotatedAgain(ctx, current.tokenHash, family.id, at);
  if (family.status !== 'active') throw new OAuthError('invalid_grant', 'refresh_token: revoked');
  if (Date.parse(family.expiresAt) <= at.getTime())
    throw new OAuthError('invalid_grant', 'refresh_token: expired');
  if (form.resource !== undefined && form.resource !== family.resource) {
    throw new OAuthError(
      'invalid_target',
      'resource: not the one the refresh token was issued for',
    );
  }
  let scopes = family.scopes;
  if (form.scope !== undefined) {
    const parsed = parseScope(form.scope);
    const wider =
      'unknown' in parsed ? parsed.unknown : parsed.scopes.find((s) => !family.scopes.includes(s));
    if (wider !== undefined || !('scopes' in parsed) || parsed.scopes.length === 0) {
      throw new OAuthError(
        'invalid_scope',
        `scope: ${wider ?? '(none)'} was not granted; a refresh may only narrow the scope`,
      );
    }
    scopes = parsed.scopes;
  }
  const consent = await liveConsent(ctx, family.consentId);
  const next = newRefreshToken();
  // Before rotating: whoever then finds the token rotated also finds when it was first used.
  await markFirstUse(ctx.state, current.tokenHash, at);
  const rotated = await ctx.store.oauth.tokens.rotate(current.tokenHash, {
    tokenHash: sha256Hex(next),
    familyId: family.id,
    scopes,
    status: 'active',
    createdAt: at.toISOString(),
  });
  if (!rotated) return rotatedAgain(ctx, current.tokenHash, family.id, at);
  const reply = await tokenReply(ctx, consent, family, scopes, next, undefined);
  await auditOAuth(ctx, { action: 'oauth.token.refresh', ...asAgent(consent), subject: family.id });
  return reply;
}

/**
 * A token already rotated: within the grace of its first use, a concurrent
 * refresh that lost (refused, its family left alone); later, a replay.
 */
async function rotatedAgain(
  ctx: OAuthContext,
  tokenHash: string,
  familyId: string,
  at: Date,
): Promise<never> {
  if (await isConcurrentUse(ctx.state, tokenHash, at)) {
    throw new OAuthError('invalid_grant', 'refresh_token: already used by a concurrent refresh');
  }
  return reused(ctx, familyId, at);
}

/** A refresh token someone else has a copy of: its whole family is revoked. */
async function reused(ctx: OAuthContext, familyId: string, at: Date): Promise<never> {
  if (await ctx.store.oauth.tokens.revokeFamily(familyId, at.toISOString())) {
    await auditOAuth(ctx, {
      action: 'oauth.token.reuse',
      decision: 'denied',
      outcome: null,
      reason: 'unauthenticated',
      subject: familyId,
    });
  }
  throw new OAuthError(
    'invalid_grant',
    'refresh_token: already used; every token of its family is revoked',
  );
}

/** The consent behind a grant, while it and the agent it acts as are both live. */
async function liveConsent(ctx: OAuthContext, id: string): Promise<Consent> {
  const consent = await ctx.store.oauth.consents.byId(id);
  if (consent?.status !== 'active')
    throw new OAuthError('invalid_grant', 'the consent behind this grant is revoked');
  const agent = await ctx.store.agents.byId(consent.workspaceId, consent.agentId);
  if (agent?.status !== 'active') {
    // Tokens for a revoked agent would only be refused at /mcp: the client should sign in again.
    throw new OAuthError('invalid_grant', 'an operator has revoked the agent behind this grant');
  }
  return consent;
}

async function tokenReply(
  ctx: OAuthContext,
  consent: Consent,
  family: TokenFamily,
  scopes: readonly string[],
  refreshToken: string,
  memberId: string | undefined,
): Promise<OAuthReply> {
  const key = signingKeyOf(ctx);
  const { token: accessToken, expiresIn } = await signAccessToken(
    {
      issuer: ctx.issuer,
      resource: family.resource,
      memberId: memberId ?? consent.memberId,
      clientId: family.clientId,
      scopes,
      workspaceId: consent.workspaceId,
      agentId: consent.agentId,
      consentId: consent.id,
      familyId: family.id,
    },
    key,
    ctx.now(),
  );
  return jsonReply(200, {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: expiresIn,
    refresh_token: refreshToken,
    scope: scopes.join(' '),
  });
}

function asAgent(consent: Consent) {
  return {
    actorKind: 'agent' as const,
    actorId: consent.agentId,
    workspaceId: consent.workspaceId,
  };
}

function newRefreshToken(): string {
  return `pcr_${randomBytes(32).toString('base64url')}`;
}

function required(form: TokenForm, name: string): string {
  const value = form[name];
  if (value === undefined || value === '')
    throw new OAuthError('invalid_request', `${name}: missing`);
  return value;
}
