/**
 * The tokens after the sign-in: the refresh-token grant (with `resource`
 * unless the connection switched it off; a rotated refresh token replaces
 * the old one, which is kept when none comes back), RFC 7009 revocation,
 * and when a token is due for a refresh. `invalid_grant` on a refresh (the
 * refresh token was revoked or already rotated) and a client the server no
 * longer knows are `oauth_sign_in_required`: no retry, the credential waits
 * for a person.
 */
import * as oauth from 'oauth4webapi';
import { GatewayError } from '../../base/errors.ts';
import type { NeedsRefresh, RefreshTokens, RevokeTokens, TokenSet } from './engine-contract.ts';
import { clientAuthOf, clientOf, secretRedactor, serverOf } from './library-shapes.ts';
import { oauthFailure } from './oauth-errors.ts';
import { libraryOptions } from './oauth-http.ts';

/** A token response as the engine's token set; `asked` stands in for an absent `scope`. */
export function tokenSetOf(
  result: oauth.TokenEndpointResponse,
  asked: readonly string[],
  now: Date,
  previousRefreshToken?: string,
): TokenSet {
  if (result.token_type !== 'bearer')
    throw new GatewayError(
      'oauth_token_failed',
      'the authorization server issued a token type other than Bearer, which Portcullis does not send',
      { detail: { tokenType: String(result.token_type).slice(0, 20) } },
    );
  const refreshToken = result.refresh_token ?? previousRefreshToken;
  const expiresIn = result.expires_in;
  return {
    accessToken: result.access_token,
    ...(refreshToken ? { refreshToken } : {}),
    ...(typeof expiresIn === 'number' && expiresIn > 0
      ? { expiresAt: new Date(now.getTime() + expiresIn * 1000).toISOString() }
      : {}),
    scopes:
      typeof result.scope === 'string'
        ? result.scope.split(' ').filter((s) => s !== '')
        : [...asked],
    tokenType: 'bearer',
    obtainedAt: now.toISOString(),
  };
}

export const refreshTokens: RefreshTokens = async (grant, tokens, context) => {
  if (!tokens.refreshToken)
    throw new GatewayError(
      'oauth_sign_in_required',
      'the access token expired and the authorization server gave no refresh token: sign in again',
    );
  const now = (context.now ?? (() => new Date()))();
  const server = serverOf(grant.metadata, context.policy, ['token']);
  const client = clientOf(grant.client);
  try {
    const response = await oauth.refreshTokenGrantRequest(
      server,
      client,
      clientAuthOf(grant.client),
      tokens.refreshToken,
      {
        ...libraryOptions(context, secretRedactor(grant.client)),
        ...(grant.sendResource ? { additionalParameters: { resource: grant.resource } } : {}),
      },
    );
    const result = await oauth.processRefreshTokenResponse(server, client, response);
    return tokenSetOf(result, tokens.scopes, now, tokens.refreshToken);
  } catch (error) {
    throw await oauthFailure(error, 'refresh', grant.sendResource);
  }
};

export const revokeTokens: RevokeTokens = async (grant, tokens, context) => {
  if (grant.metadata.revocation_endpoint === undefined) return { revoked: false };
  const server = serverOf(grant.metadata, context.policy, ['revocation']);
  const client = clientOf(grant.client);
  // What counts is the refresh token (the one that outlives a call); a server may refuse to
  // revoke a self-contained access token (`unsupported_token_type`, RFC 7009 §2.2.1).
  const taken: Partial<Record<'refresh_token' | 'access_token', boolean>> = {};
  for (const [token, hint] of [
    [tokens.refreshToken, 'refresh_token'],
    [tokens.accessToken, 'access_token'],
  ] as const) {
    if (!token) continue;
    try {
      const response = await oauth.revocationRequest(
        server,
        client,
        clientAuthOf(grant.client),
        token,
        {
          ...libraryOptions(context, secretRedactor(grant.client)),
          additionalParameters: { token_type_hint: hint },
        },
      );
      await oauth.processRevocationResponse(response);
      taken[hint] = true;
    } catch {
      // Forgotten anyway; the server keeps what it keeps.
      taken[hint] = false;
    }
  }
  return { revoked: (tokens.refreshToken ? taken.refresh_token : taken.access_token) === true };
};

export const needsRefresh: NeedsRefresh = (tokens, now, skewMs = 60_000) =>
  tokens.expiresAt !== undefined && Date.parse(tokens.expiresAt) - skewMs <= now.getTime();
