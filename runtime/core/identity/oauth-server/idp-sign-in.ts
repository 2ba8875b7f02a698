/**
 * A member signs in at the company's OpenID provider (issue 35): the
 * authorization code flow with PKCE (S256), `state` and `nonce`, by
 * oauth4webapi, every request through the guarded client.
 *
 * The start keeps what the callback needs (the provider, the PKCE verifier,
 * the nonce, where the person goes next) in the shared state for 10 minutes
 * under the hash of `state`, and ties it to the browser by a random cookie
 * (only its hash is kept), so a callback link sent to someone else signs
 * nobody in. The callback takes the pending sign-in once, checks the
 * authorization response (`state`, `iss` when the provider sends it),
 * redeems the code with the client's secret (HTTP Basic), and checks the ID
 * token: `iss` the provider's issuer, `aud` containing our client id, `azp`
 * ours when present, the `nonce` ours, not expired, and signed by one of the
 * provider's published keys (an unsigned token, or one signed by another
 * key, is refused even though it came straight from the token endpoint).
 * Only then is the member found by `iss` and `sub` (`idp-members.ts`).
 *
 * Every failure is `idp_sign_in_failed` with the step it failed at, audited
 * without the code, the tokens or the secret.
 */
import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { sha256Hex } from '../../../../generated/catalog-rules.ts';
import { GatewayError } from '../../base/errors.ts';
import { type SubjectTokens, subjectTokensPlace } from '../../model/delegation.ts';
import type { IdentityProvider } from '../../model/identity.ts';
import type { Member } from '../../model/oauth.ts';
import { applyGroups } from './idp-groups.ts';
import { memberOfIdentity } from './idp-members.ts';
import { auditOAuth, type OAuthContext } from './oauth-context.ts';
import { type OAuthReply, redirectReply } from './oauth-reply.ts';
import { sameSecret } from './same-secret.ts';

export const IDP_SIGN_IN_PATH = '/sign-in/idp';
export const IDP_CALLBACK_PATH = '/sign-in/idp/callback';
export const IDP_BROWSER_COOKIE = 'portcullis_idp';
const PENDING_TTL_MS = 10 * 60_000;
const DEFAULT_SCOPE = 'openid profile email';
const pendingKey = (state: string) => `oauth:idp-sign-in:${sha256Hex(state)}`;

/** Where the person goes once signed in. */
export type IdpPurpose =
  | { to: 'console' }
  /** Back to the consent page's review step: its sealed request, CSRF token and the scopes left checked. */
  | { to: 'consent'; request: string; csrf: string; scopes: string[] };

interface PendingIdpSignIn {
  provider: string;
  issuer: string;
  verifier: string;
  nonce: string;
  browserHash: string;
  purpose: IdpPurpose;
}

export interface IdpSignedIn {
  member: Member;
  provider: IdentityProvider;
  purpose: IdpPurpose;
  /** The ID token's claims, checked (what groups become roles from). */
  claims: Readonly<Record<string, unknown>>;
}

/** The callback address registered at the provider. */
export function idpRedirectUri(issuer: string): string {
  return `${issuer}${IDP_CALLBACK_PATH}`;
}

/** Sends the browser to the provider; unknown provider: `not_found` (field `provider`). */
export async function startIdpSignIn(
  ctx: OAuthContext,
  providerName: string,
  purpose: IdpPurpose,
): Promise<OAuthReply> {
  const provider = await providerOrThrow(ctx, providerName);
  const peer = await ctx.idps.peer(provider);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const browser = randomBytes(32).toString('base64url');
  const pending: PendingIdpSignIn = {
    provider: provider.name,
    issuer: provider.issuer,
    verifier,
    nonce,
    browserHash: sha256Hex(browser),
    purpose,
  };
  await ctx.state.set(pendingKey(state), JSON.stringify(pending), PENDING_TTL_MS);
  const url = new URL(peer.metadata.authorization_endpoint as string);
  url.searchParams.set('client_id', provider.clientId);
  url.searchParams.set('redirect_uri', idpRedirectUri(ctx.issuer));
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', provider.scopes || DEFAULT_SCOPE);
  url.searchParams.set('state', state);
  url.searchParams.set('nonce', nonce);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  const reply = redirectReply(url.href, 303);
  // Lax: the provider's redirect back is a cross-site navigation, which a Strict cookie would miss.
  reply.headers['Set-Cookie'] =
    `${IDP_BROWSER_COOKIE}=${browser}; Path=${IDP_SIGN_IN_PATH}; Max-Age=${PENDING_TTL_MS / 1000}; HttpOnly; SameSite=Lax${ctx.secureCookies ? '; Secure' : ''}`;
  return reply;
}

/** The callback: the member signed in, or `idp_sign_in_failed` naming the step. */
export async function finishIdpSignIn(
  ctx: OAuthContext,
  query: URLSearchParams,
  cookies: Readonly<Record<string, string>>,
): Promise<IdpSignedIn> {
  const state = query.get('state') ?? '';
  const text = state === '' ? undefined : await ctx.state.take(pendingKey(state));
  if (text === undefined) return failed(ctx, undefined, 'state');
  const pending = JSON.parse(text) as PendingIdpSignIn;
  const provider = await ctx.store.identity.providerByName(pending.provider);
  if (!provider || provider.issuer !== pending.issuer) return failed(ctx, undefined, 'provider');
  if (!sameSecret(sha256Hex(cookies[IDP_BROWSER_COOKIE] ?? ''), pending.browserHash))
    return failed(ctx, provider, 'browser');
  const peer = await ctx.idps.peer(provider);
  const { metadata, client, options } = peer;
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(metadata, client, query, state);
  } catch (error) {
    return failed(ctx, provider, 'authorization_response', error);
  }
  const secret = ctx.idps.secretOf(provider);
  let response: Response;
  try {
    response = await oauth.authorizationCodeGrantRequest(
      metadata,
      client,
      oauth.ClientSecretBasic(secret),
      params,
      idpRedirectUri(ctx.issuer),
      pending.verifier,
      options,
    );
  } catch (error) {
    if (error instanceof GatewayError)
      throw new GatewayError('idp_unavailable', undefined, {
        detail: { provider: provider.name, step: 'token', cause: error.code },
      });
    throw error;
  }
  let claims: oauth.IDToken;
  let refreshToken: string | undefined;
  let result: oauth.TokenEndpointResponse;
  try {
    result = await oauth.processAuthorizationCodeResponse(metadata, client, response, {
      expectedNonce: pending.nonce,
      requireIdToken: true,
    });
    await oauth.validateApplicationLevelSignature(metadata, response, options);
    const checked = oauth.getValidatedIdTokenClaims(result);
    if (!checked) return failed(ctx, provider, 'id_token');
    claims = checked;
    refreshToken = result.refresh_token;
  } catch (error) {
    return failed(ctx, provider, 'id_token', error);
  }
  if (claims.iss !== provider.issuer || typeof claims.sub !== 'string' || claims.sub === '')
    return failed(ctx, provider, 'id_token');
  const found = await memberOfIdentity(ctx, provider, { iss: claims.iss, sub: claims.sub, claims });
  const { created } = found;
  // Kept sealed for `idp sync`: the groups read again without the person.
  if (provider.groupsClaim !== null && refreshToken !== undefined)
    await keepRefreshToken(ctx, claims.iss, claims.sub, refreshToken);
  // Kept sealed for a connection that acts on the member's behalf (RFC 8693 token exchange).
  await keepSubjectTokens(ctx, claims, result);
  // The groups of a token whose signature was checked: what they give, and what they no longer give.
  const member = await applyGroups(ctx, provider, found.member, claims);
  await auditOAuth(ctx, {
    action: 'oauth.sign_in',
    actorKind: 'member',
    actorId: member.id,
    workspaceId: member.workspaceId,
    subject: `idp:${provider.name}${created ? ':first' : ''}`,
  });
  return { member, provider, purpose: pending.purpose, claims };
}

/** Where an identity's IdP refresh token is sealed (the vault binds the seal to it). */
export const refreshPlace = (issuer: string, subject: string) =>
  `idp-refresh:${sha256Hex(`${issuer}\n${subject}`)}`;

export async function keepRefreshToken(
  ctx: OAuthContext,
  issuer: string,
  subject: string,
  token: string,
): Promise<void> {
  const { sealed } = await ctx.vault.sealUnderCurrent(
    ctx.store,
    refreshPlace(issuer, subject),
    token,
  );
  await ctx.store.identity.setRefreshToken(issuer, subject, sealed);
}

/** The ID token and access token of the sign-in (or of a sync's refresh), sealed, with when each expires. */
export async function keepSubjectTokens(
  ctx: OAuthContext,
  claims: oauth.IDToken,
  result: oauth.TokenEndpointResponse,
): Promise<void> {
  if (typeof result.id_token !== 'string') return;
  const now = ctx.now().getTime();
  const kept: SubjectTokens = {
    idToken: result.id_token,
    idTokenExpiresAt: new Date(claims.exp * 1000).toISOString(),
    ...(typeof result.expires_in === 'number' && result.expires_in > 0
      ? {
          accessToken: result.access_token,
          accessTokenExpiresAt: new Date(now + result.expires_in * 1000).toISOString(),
        }
      : {}),
  };
  const { sealed } = await ctx.vault.sealUnderCurrent(
    ctx.store,
    subjectTokensPlace(claims.iss, claims.sub),
    JSON.stringify(kept),
  );
  await ctx.store.identity.setSubjectTokens(claims.iss, claims.sub, sealed);
}

async function providerOrThrow(ctx: OAuthContext, name: string): Promise<IdentityProvider> {
  const provider = await ctx.store.identity.providerByName(name);
  if (!provider)
    throw new GatewayError('not_found', 'no identity provider has this name', {
      field: 'provider',
    });
  return provider;
}

/** Audits the refusal (the step, the library's code; nothing the provider sent) and throws it. */
export async function failed(
  ctx: OAuthContext,
  provider: IdentityProvider | undefined,
  step: string,
  error?: unknown,
): Promise<never> {
  const cause =
    error instanceof oauth.OperationProcessingError ||
    error instanceof oauth.AuthorizationResponseError ||
    error instanceof oauth.ResponseBodyError
      ? error instanceof oauth.OperationProcessingError
        ? error.code
        : error.error
      : undefined;
  await auditOAuth(ctx, {
    action: 'oauth.sign_in',
    decision: 'denied',
    outcome: null,
    reason: 'idp_sign_in_failed',
    subject: `idp:${provider?.name ?? '?'}:${step}`,
    ...(provider ? { workspaceId: provider.workspaceId } : {}),
  });
  throw new GatewayError('idp_sign_in_failed', undefined, {
    detail: {
      step,
      ...(provider ? { provider: provider.name } : {}),
      ...(typeof cause === 'string' ? { cause: cause.slice(0, 64) } : {}),
    },
  });
}

/** What the sign-in pages offer: the providers that can be reached now, and whether the password is offered too. */
export interface IdpOffers {
  names: string[];
  /** A provider offered is the only way in (`--only`): no password form. */
  only: boolean;
  /** Their authorization endpoints' origins, which a page's form may be redirected to. */
  origins: string[];
}

export async function idpOffers(ctx: OAuthContext): Promise<IdpOffers> {
  const offers: IdpOffers = { names: [], only: false, origins: [] };
  for (const provider of await ctx.store.identity.providers()) {
    let endpoint: string;
    try {
      endpoint = (await ctx.idps.peer(provider)).metadata.authorization_endpoint as string;
    } catch (error) {
      // A provider that cannot be reached now is not offered; the page still works.
      if (error instanceof GatewayError) continue;
      throw error;
    }
    offers.names.push(provider.name);
    offers.only ||= provider.only;
    const origin = new URL(endpoint).origin;
    if (!offers.origins.includes(origin)) offers.origins.push(origin);
  }
  return offers;
}
