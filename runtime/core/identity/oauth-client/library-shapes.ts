/**
 * The engine's records as oauth4webapi takes them: the authorization server
 * (its endpoints checked again before each use, since the record may come
 * back from storage), the client, how it authenticates, and a redactor that
 * keeps its secret out of every error.
 */
import * as oauth from 'oauth4webapi';
import { Redactor } from '../../outbound/redaction.ts';
import { checkOAuthEndpointUrl } from './endpoint-check.ts';
import type {
  AuthorizationServerMetadata,
  ClientMaterial,
  OAuthEndpointKind,
  UpstreamOAuthPolicy,
} from './engine-contract.ts';

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
  if (client.tokenEndpointAuthMethod === 'client_secret_post')
    return oauth.ClientSecretPost(secret);
  const credential = basicCredential(client.clientId, secret);
  return (_server, _client, _body, headers) => {
    headers.set('authorization', `Basic ${credential}`);
  };
}

/**
 * RFC 6749 §2.3.1: id and secret each form-urlencoded, joined by `:`, in
 * Base64. Encoded as WHATWG `URLSearchParams` does (`-`, `.`, `_`, `*`
 * stay), not as oauth4webapi does (it escapes those too, which servers that
 * skip the decoding step, or decode only `%XX` of reserved characters, read
 * as another client id).
 */
export function basicCredential(clientId: string, secret: string): string {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  return Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64');
}

/**
 * Keeps the client's secret (and the Basic credential built from it) out of
 * errors. Not the tokens: the redactor also rewrites reply bodies, and a
 * server that does not rotate hands the same refresh token back.
 */
export function secretRedactor(client: ClientMaterial): Redactor {
  const secret = client.clientSecret;
  return new Redactor(secret ? [secret, basicCredential(client.clientId, secret)] : []);
}
