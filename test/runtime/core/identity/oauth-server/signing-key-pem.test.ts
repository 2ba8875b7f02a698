/**
 * A signing key from the environment (`PORTCULLIS_OAUTH_SIGNING_KEY_PEM`):
 * an RSA key signs RS256 tokens, the JWKS publishes just its public half, the
 * tokens work on `/mcp`, and the store keeps no key of its own.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type OAuthGateway, startOAuthGateway } from '../../../../support/oauth/oauth-gateway.ts';
import {
  codeFor,
  exchange,
  mcpStatus,
  registerClient,
} from '../../../../support/oauth/raw-flow.ts';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
let running: OAuthGateway;

beforeAll(async () => {
  running = await startOAuthGateway({ environment: { PORTCULLIS_OAUTH_SIGNING_KEY_PEM: pem } });
});
afterAll(() => running?.close());

it('signs RS256 tokens with the PEM and publishes only its public half', async () => {
  const client = await registerClient(running.url);
  const tokens = await exchange(running.url, client, await codeFor(running.url, client));
  const header = JSON.parse(
    Buffer.from(String(tokens.body.access_token).split('.')[0]!, 'base64url').toString(),
  );
  expect(header).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
  const jwks = (await (await fetch(`${running.url}/oauth/jwks`)).json()) as {
    keys: Array<Record<string, string>>;
  };
  expect(jwks.keys).toHaveLength(1);
  expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', kid: header.kid, use: 'sig' });
  expect(jwks.keys[0]!.d).toBeUndefined();
  expect(await mcpStatus(running.url, String(tokens.body.access_token))).toBe(200);
  expect(await running.gateway.running.gateway.store.oauth.signingKeys.list()).toEqual([]);
});
