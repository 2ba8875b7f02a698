/**
 * An upstream whose authorization server exchanges tokens (RFC 8693) for a
 * remote connection that acts on members' behalf: oidc-provider as the
 * weather upstream's AS (test/support/remote/oauth-upstream.ts), the
 * gateway's client there preregistered for client credentials and token
 * exchange, the connection configured with that client and `onBehalfOf`,
 * and a member's call through it with the bearer the upstream was sent.
 */
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from 'jose';
import { expect } from 'vitest';
import { changeActions } from '../../../runtime/core/operator/actions.ts';
import { connectUrl } from '../../../runtime/core/operator/remote-connections.ts';
import { adminClient, callTool, mcpClient, type TestGateway } from '../gateway.ts';
import {
  type OAuthUpstream,
  type OAuthUpstreamOptions,
  startOAuthUpstream,
} from './oauth-upstream.ts';

/** The gateway's client at the upstream's authorization server. */
export const UPSTREAM_CLIENT = 'portcullis-at-weather';
export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
export const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt';

/** The weather upstream, `UPSTREAM_CLIENT` (with `clientSecret`) its only client; `verify` says whose a subject token is. */
export function startExchangeUpstream(
  clientSecret: string,
  verify: NonNullable<OAuthUpstreamOptions['tokenExchange']>['verify'],
): Promise<OAuthUpstream> {
  return startOAuthUpstream({
    tenant: 'weather',
    registration: false,
    clientCredentials: true,
    clients: [
      {
        client_id: UPSTREAM_CLIENT,
        client_secret: clientSecret,
        grant_types: ['client_credentials', TOKEN_EXCHANGE],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    tokenExchange: { verify },
  });
}

export interface OnBehalfOfOptions {
  clientSecret: string;
  /** The subject tokens exchanged: `portcullis` (the gateway's own) or `id_token` (the IdP's). */
  onBehalfOf: 'portcullis' | 'id_token';
}

/** Connects `upstream` as `wx` through `gateway`'s admin API, acting on members' behalf, every action reviewed. */
export async function connectOnBehalfOf(
  gateway: TestGateway,
  upstream: OAuthUpstream,
  options: OnBehalfOfOptions,
): Promise<void> {
  const ctx = gateway.running.gateway.operator('test');
  const draft = await connectUrl(ctx, { workspace: 'default', url: upstream.mcp.url, name: 'wx' });
  expect(draft.next).toBe('sign_in');
  const configured = await adminClient(gateway.url, gateway.adminToken!)(
    'PUT',
    '/workspaces/default/connections/wx/auth',
    {
      clientCredentials: 'client_secret_basic',
      clientId: UPSTREAM_CLIENT,
      clientSecret: options.clientSecret,
      onBehalfOf: options.onBehalfOf,
      audience: 'weather-api',
    },
  );
  expect(configured.status, configured.text).toBe(200);
  await changeActions(ctx, 'review', { workspace: 'default', connection: 'wx', all: true });
}

/** Calls `wx__get_weather` through `replica` with `token` (expects no error); the bearer the upstream was sent. */
export async function callOnBehalf(
  upstream: OAuthUpstream,
  replica: TestGateway,
  token: string,
): Promise<string> {
  const received = upstream.received.length;
  const client = await mcpClient(replica.url, token);
  try {
    const reply = await callTool(client, 'wx__get_weather', { city: 'Oslo' });
    expect(reply.isError ?? false, JSON.stringify(reply)).toBe(false);
  } finally {
    await client.close();
  }
  const bearer = upstream.received.slice(received).at(-1);
  expect(bearer).toBeDefined();
  return bearer!;
}

/** The claims of a subject token the gateway at `gatewayUrl` signed as `issuer` for `audience`, checked by its published keys. */
export async function gatewaySubjectClaims(
  token: string,
  gatewayUrl: string,
  issuer: string,
  audience: string,
): Promise<JWTPayload> {
  const keys = createRemoteJWKSet(new URL(`${gatewayUrl}/oauth/jwks`));
  const { payload } = await jwtVerify(token, keys, { issuer, audience, typ: 'JWT' });
  return payload;
}
