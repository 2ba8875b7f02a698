/**
 * The two grants Portcullis asks a remote connection's authorization server
 * for without a person (issue 35): RFC 8693 token exchange (the member's
 * subject token for an upstream token with the connection's `resource` and
 * `audience`), and client credentials (the workspace's own client,
 * authenticated with its secret or, `private_key_jwt`, an RFC 7523
 * assertion signed by its key). Both on oauth4webapi, through the guarded
 * client; the server's refusal keeps its RFC code only, and no token or
 * secret is in any error.
 */
import { importJWK, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import { GatewayError } from '../../base/errors.ts';
import { type MachineSetting, TOKEN_EXCHANGE_GRANT } from '../../model/delegation.ts';
import { Redactor } from '../../outbound/redaction.ts';
import type { TokenGrant, TokenSet, UpstreamOAuthContext } from './engine-contract.ts';
import { clientAuthOf, clientOf, secretRedactor, serverOf } from './library-shapes.ts';
import { oauthFailure } from './oauth-errors.ts';
import { libraryOptions } from './oauth-http.ts';
import { tokenSetOf } from './tokens.ts';

const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

export interface ExchangeRequest {
  subjectToken: string;
  subjectTokenType: string;
  audience?: string | undefined;
  scopes: readonly string[];
  /** `private_key_jwt`: the client's sealed secret is its private key (the connection's client credentials setting). */
  clientAuth?: MachineSetting['auth'] | undefined;
}

/** RFC 8693 §2.1: the member's token for one the upstream takes, with its `resource` (and `audience`). */
export async function exchangeToken(
  grant: TokenGrant,
  request: ExchangeRequest,
  context: UpstreamOAuthContext,
): Promise<TokenSet> {
  const now = (context.now ?? (() => new Date()))();
  const server = serverOf(grant.metadata, context.policy, ['token']);
  const client = clientOf(grant.client);
  const parameters = new URLSearchParams({
    subject_token: request.subjectToken,
    subject_token_type: request.subjectTokenType,
    requested_token_type: ACCESS_TOKEN_TYPE,
  });
  if (grant.sendResource) parameters.set('resource', grant.resource);
  if (request.audience !== undefined) parameters.set('audience', request.audience);
  if (request.scopes.length > 0) parameters.set('scope', request.scopes.join(' '));
  // The subject token is the member's: kept out of every error along with the client's secret.
  const redactor = new Redactor([request.subjectToken], secretRedactor(grant.client));
  try {
    const keyed = request.clientAuth === 'private_key_jwt';
    const response = await oauth.genericTokenEndpointRequest(
      server,
      keyed ? { ...client, token_endpoint_auth_method: 'private_key_jwt' } : client,
      keyed ? await assertionAuth(grant) : clientAuthOf(grant.client),
      TOKEN_EXCHANGE_GRANT,
      parameters,
      libraryOptions(context, redactor),
    );
    const result = await oauth.processGenericTokenEndpointResponse(server, client, response);
    if (result.issued_token_type !== undefined && result.issued_token_type !== ACCESS_TOKEN_TYPE)
      throw new GatewayError(
        'upstream_token_exchange_failed',
        'the authorization server exchanged the token for another kind of token than an access token',
      );
    // No refresh token is kept: an expired exchange is exchanged again.
    const { refreshToken: _, ...tokens } = tokenSetOf(result, request.scopes, now);
    return tokens;
  } catch (error) {
    throw await oauthFailure(error, 'token exchange', grant.sendResource);
  }
}

/** RFC 6749 §4.4: a token for the workspace's own client, with the connection's `resource`. */
export async function clientCredentialsToken(
  grant: TokenGrant,
  setting: MachineSetting,
  scopes: readonly string[],
  context: UpstreamOAuthContext,
): Promise<TokenSet> {
  const now = (context.now ?? (() => new Date()))();
  const server = serverOf(grant.metadata, context.policy, ['token']);
  const client = clientOf(grant.client);
  const parameters = new URLSearchParams();
  if (grant.sendResource) parameters.set('resource', grant.resource);
  if (scopes.length > 0) parameters.set('scope', scopes.join(' '));
  try {
    const auth =
      setting.auth === 'private_key_jwt' ? await assertionAuth(grant) : clientAuthOf(grant.client);
    const response = await oauth.clientCredentialsGrantRequest(
      server,
      {
        ...client,
        ...(setting.auth === 'private_key_jwt'
          ? { token_endpoint_auth_method: 'private_key_jwt' }
          : {}),
      },
      auth,
      parameters,
      libraryOptions(context, secretRedactor(grant.client)),
    );
    const result = await oauth.processClientCredentialsResponse(server, client, response);
    const { refreshToken: _, ...tokens } = tokenSetOf(result, scopes, now);
    return tokens;
  } catch (error) {
    throw await oauthFailure(error, 'client credentials', grant.sendResource);
  }
}

/** `private_key_jwt`: the client's sealed secret is its private key, a JWK. */
async function assertionAuth(grant: TokenGrant): Promise<oauth.ClientAuth> {
  let jwk: JWK;
  try {
    jwk = JSON.parse(grant.client.clientSecret ?? '') as JWK;
  } catch {
    throw new GatewayError(
      'invalid_input',
      "the connection's client key is not a private JWK: portcullis connection auth <connection> --client-credentials private_key_jwt --client-key-env <VAR>",
      { field: 'client_key' },
    );
  }
  const alg = typeof jwk.alg === 'string' ? jwk.alg : 'ES256';
  const key = (await importJWK(jwk, alg)) as oauth.PrivateKey['key'];
  return oauth.PrivateKeyJwt({ key, ...(jwk.kid ? { kid: jwk.kid } : {}) });
}
