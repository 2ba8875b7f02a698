/**
 * The authorization code flow with PKCE (OAuth 2.1, MCP 2025-11-25
 * "Authorization Flow Steps"):
 *
 * - `startSignIn` builds the authorization URL: `response_type=code`, the
 *   client, the callback, a PKCE S256 challenge, a fresh `state`, the
 *   scopes (omitted when there are none), and RFC 8707 `resource` unless
 *   the connection switched it off;
 * - `finishSignIn` reads the callback: the pending sign-in must not have
 *   expired and `state` must equal it; RFC 9207 `iss`, when present, must
 *   equal the recorded issuer by simple string comparison, and must be
 *   present when the server advertised it (either failure refuses the code
 *   without exchanging it); an error reply keeps only its RFC code; then
 *   the code is exchanged with the verifier and the same `resource`.
 */
import { timingSafeEqual } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { GatewayError } from '../../base/errors.ts';
import { checkOAuthEndpointUrl } from './endpoint-check.ts';
import type { FinishSignIn, PendingSignIn, StartSignIn } from './engine-contract.ts';
import { clientAuthOf, clientOf, secretRedactor, serverOf } from './library-shapes.ts';
import { oauthFailure, rfcErrorCode } from './oauth-errors.ts';
import { libraryOptions } from './oauth-http.ts';
import { tokenSetOf } from './tokens.ts';

/** How long a sign-in may take between the link and the callback, by default. */
export const SIGN_IN_TTL_MS = 10 * 60_000;

export const startSignIn: StartSignIn = async (discovery, client, options, context) => {
  if (client.binding.redirectUri !== options.redirectUri)
    throw new TypeError('startSignIn: the redirect URI is not the one the client is bound to');
  if (client.binding.issuer !== discovery.issuer)
    throw new TypeError('startSignIn: the client is bound to another issuer');
  const authorization = checkOAuthEndpointUrl(
    discovery.metadata.authorization_endpoint,
    'authorization',
    context.policy,
  );
  const now = (context.now ?? (() => new Date()))();
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const scopes = [...(options.scopes ?? discovery.scopes)];
  const sendResource = options.sendResource ?? true;

  const url = new URL(authorization.href);
  const params = url.searchParams;
  params.set('response_type', 'code');
  params.set('client_id', client.clientId);
  params.set('redirect_uri', options.redirectUri);
  params.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
  params.set('code_challenge_method', 'S256');
  params.set('state', state);
  if (scopes.length > 0) params.set('scope', scopes.join(' '));
  if (sendResource) params.set('resource', discovery.resource);

  const pending: PendingSignIn = {
    state,
    codeVerifier,
    expectedIssuer: discovery.issuer,
    resource: discovery.resource,
    sendResource,
    scopes,
    redirectUri: options.redirectUri,
    clientId: client.clientId,
    metadata: discovery.metadata,
    expiresAt: new Date(now.getTime() + (options.ttlMs ?? SIGN_IN_TTL_MS)).toISOString(),
  };
  return { authorizationUrl: url, host: url.host, pending };
};

export const finishSignIn: FinishSignIn = async (pending, callback, client, context) => {
  if (client.clientId !== pending.clientId)
    throw new TypeError('finishSignIn: the client is not the one the sign-in started with');
  const now = (context.now ?? (() => new Date()))();
  if (
    Date.parse(pending.expiresAt) <= now.getTime() ||
    !sameText(callback.get('state'), pending.state)
  )
    throw new GatewayError(
      'oauth_state_invalid',
      'the sign-in is unknown, already used or expired (state); start it again',
      { field: 'state' },
    );
  assertIssuer(pending, callback.get('iss'));

  const server = serverOf(pending.metadata, context.policy, ['token']);
  const library = clientOf(client);
  let parameters: URLSearchParams;
  try {
    parameters = oauth.validateAuthResponse(server, library, callback, pending.state);
  } catch (error) {
    throw authorizationError(error, pending.sendResource);
  }
  try {
    const response = await oauth.authorizationCodeGrantRequest(
      server,
      library,
      clientAuthOf(client),
      parameters,
      pending.redirectUri,
      pending.codeVerifier,
      {
        ...libraryOptions(context, secretRedactor(client)),
        ...(pending.sendResource ? { additionalParameters: { resource: pending.resource } } : {}),
      },
    );
    const result = await oauth.processAuthorizationCodeResponse(server, library, response);
    return tokenSetOf(result, pending.scopes, now);
  } catch (error) {
    throw await oauthFailure(error, 'code exchange', pending.sendResource);
  }
};

/** RFC 9207 §2.4: simple string comparison, before anything else in the reply is used. */
function assertIssuer(pending: PendingSignIn, iss: string | null): void {
  const promised = pending.metadata.authorization_response_iss_parameter_supported === true;
  if (iss === null ? !promised : iss === pending.expectedIssuer) return;
  throw new GatewayError(
    'oauth_iss_mismatch',
    iss === null
      ? 'the authorization server promised an iss parameter (RFC 9207) and sent none; the code was not used'
      : 'the authorization response names another issuer (iss, RFC 9207) than the one the sign-in went to; the code was not used',
    { field: 'iss', detail: { expectedIssuerHost: new URL(pending.expectedIssuer).host } },
  );
}

function authorizationError(error: unknown, sentResource: boolean): Error {
  if (error instanceof oauth.AuthorizationResponseError) {
    const oauthError = rfcErrorCode(error.error);
    if (sentResource && oauthError === 'invalid_target')
      return new GatewayError(
        'oauth_resource_refused',
        'the authorization server refused the resource parameter (invalid_target); turn off sending it for this connection (send_resource: false) and sign in again',
        { field: 'send_resource', detail: { oauthError, switch: 'send_resource' } },
      );
    return new GatewayError(
      'oauth_authorization_denied',
      `the authorization server did not grant access: ${oauthError}`,
      { detail: { oauthError } },
    );
  }
  return new GatewayError(
    'oauth_state_invalid',
    'the authorization response is not one this sign-in can use; start it again',
    { field: 'state' },
  );
}

function sameText(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
