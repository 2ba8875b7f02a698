/**
 * The engine's records as oauth4webapi takes them: the authorization server
 * (its endpoints checked again before each use, since the record may come
 * back from storage), the client, how it authenticates, and a redactor that
 * keeps its secret out of every error.
 */
import * as oauth from 'oauth4webapi';
import { Redactor } from '../outbound/redaction.ts';
import { checkOAuthEndpointUrl } from './endpoint-check.ts';
import type {
  AuthorizationServerMetadata,
  ClientMaterial,
  OAuthEndpointKind,
  UpstreamOAuthPolicy,
} from './upstream-oauth.ts';

/** The metadata as the library's record, with the endpoints the step uses checked. */
export function serverOf(
  metadata: AuthorizationServerMetadata,
  policy: UpstreamOAuthPolicy,
  uses: readonly Extract<OAuthEndpointKind, 'authorization' | 'token' | 'revocation'>[],
): oauth.AuthorizationServer {
  for (const kind of uses) {
    const value =
      kind === 'authorization'
        ? metadata.authorization_endpoint
        : kind === 'token'
          ? metadata.token_endpoint
          : metadata.revocation_endpoint;
    checkOAuthEndpointUrl(value, kind, policy);
  }
  return { ...metadata } as oauth.AuthorizationServer;
}

export function clientOf(client: ClientMaterial): oauth.Client {
  return { client_id: client.clientId, token_endpoint_auth_method: client.tokenEndpointAuthMethod };
}

export function clientAuthOf(client: ClientMaterial): oauth.ClientAuth {
  const secret = client.clientSecret;
  if (client.tokenEndpointAuthMethod === 'none' || secret === undefined) return oauth.None();
  return client.tokenEndpointAuthMethod === 'client_secret_post'
    ? oauth.ClientSecretPost(secret)
    : oauth.ClientSecretBasic(secret);
}

/**
 * Keeps the client's secret (and the Basic credential built from it) out of
 * errors. Not the tokens: the redactor also rewrites reply bodies, and a
 * server that does not rotate hands the same refresh token back.
 */
export function secretRedactor(client: ClientMaterial): Redactor {
  const secrets: string[] = [];
  if (client.clientSecret)
    secrets.push(
      client.clientSecret,
      Buffer.from(
        `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`,
      ).toString('base64'),
    );
  return new Redactor(secrets);
}
