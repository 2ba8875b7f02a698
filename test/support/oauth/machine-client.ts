/**
 * A machine client's side of the token endpoint, for the client credentials
 * and ID-JAG tests: its own key pair with the JWKS published on loopback
 * (what `--jwks-uri` names), RFC 7523 client assertions signed with it (or
 * with a key it never published), the two ways to authenticate, and an MCP
 * SDK client (`@modelcontextprotocol/client`) on `/mcp` with the token.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { type TokenReply, tokenRequest } from './raw-flow.ts';

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface ClientKeys {
  jwksUri: string;
  /** A client assertion for `clientId` at `audience`, 60 s, a fresh jti; `claims` overrides. */
  assertion(clientId: string, audience: string, claims?: JWTPayload): Promise<string>;
  /** The same, signed by a key the client never published. */
  assertionWithOtherKey(clientId: string, audience: string): Promise<string>;
  close(): Promise<void>;
}

export async function startClientKeys(): Promise<ClientKeys> {
  const own = await generateKeyPair('ES256', { extractable: true });
  const other = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(own.publicKey)), kid: 'machine-1', alg: 'ES256', use: 'sig' };
  const server: Server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  const sign = (
    key: Parameters<SignJWT['sign']>[0],
    clientId: string,
    audience: string,
    claims: JWTPayload = {},
  ) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ jti: randomUUID(), iat: now, exp: now + 60, ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: 'machine-1' })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(audience)
      .sign(key);
  };
  return {
    jwksUri,
    assertion: (clientId, audience, claims) => sign(own.privateKey, clientId, audience, claims),
    assertionWithOtherKey: (clientId, audience) => sign(other.privateKey, clientId, audience),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** `client_secret_basic`: the id and secret form-encoded, then Basic. */
export function basic(clientId: string, secret: string): Record<string, string> {
  const pair = `${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`;
  return { authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
}

/** A token request authenticated by a client assertion. */
export function withAssertion(
  url: string,
  assertion: string,
  form: Record<string, string | undefined>,
): Promise<TokenReply> {
  return tokenRequest(url, {
    client_assertion_type: CLIENT_ASSERTION_TYPE,
    client_assertion: assertion,
    ...form,
  });
}

/** An MCP SDK client session on `path` with a bearer token. */
export async function sdkClient(url: string, token: string, path = '/mcp'): Promise<Client> {
  const client = new Client({ name: 'portcullis-machine-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}${path}`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}
