/**
 * Everything durable survives a restart: register, stop the process, start
 * it on the same data folder, and the client still authorizes, the refresh
 * token from before still refreshes, and the access token from before still
 * verifies (the signing key was sealed in the store, not kept in memory).
 * A rotated signing key leaves tokens it signed working.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { rotateSigningKey } from '../../../../../runtime/core/operator/signing-key.ts';
import { type OAuthGateway, startOAuthGateway } from '../../../../support/oauth/oauth-gateway.ts';
import {
  codeFor,
  exchange,
  mcpStatus,
  registerClient,
  tokenRequest,
} from '../../../../support/oauth/raw-flow.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-oauth-restart-'));
let running: OAuthGateway | undefined;
/** A fixed issuer: each start listens on another port. */
const PUBLIC = { PORTCULLIS_PUBLIC_URL: 'https://gateway.example.test' };
afterAll(() => running?.close());

it('keeps clients, refresh families and the signing key across a restart, and across a key rotation', async () => {
  running = await startOAuthGateway({ dataDir, environment: PUBLIC });
  const client = await registerClient(running.url, 'http://127.0.0.1:7801/callback');
  const before = await exchange(running.url, client, await codeFor(running.url, client));
  expect(before.status).toBe(200);
  const kid = JSON.parse(
    Buffer.from(String(before.body.access_token).split('.')[0]!, 'base64url').toString(),
  ).kid;
  await running.close();

  running = await startOAuthGateway({ dataDir, environment: PUBLIC });
  const jwks = (await (await fetch(`${running.url}/oauth/jwks`)).json()) as {
    keys: Array<{ kid: string }>;
  };
  expect(jwks.keys.map((key) => key.kid)).toEqual([kid]);
  expect(await mcpStatus(running.url, String(before.body.access_token))).toBe(200);
  const refreshed = await tokenRequest(running.url, {
    grant_type: 'refresh_token',
    client_id: client.clientId,
    refresh_token: String(before.body.refresh_token),
  });
  expect(refreshed.status).toBe(200);
  const after = await exchange(running.url, client, await codeFor(running.url, client));
  expect(after.status).toBe(200);

  const gateway = running.gateway.running.gateway;
  const fresh = await exchange(running.url, client, await codeFor(running.url, client));
  const { kid: next } = await rotateSigningKey(gateway.operator('cli'), gateway.oauth.keys);
  expect(next).not.toBe(kid);
  expect(await gateway.store.audit.query({ action: 'oauth.key.rotate' })).toHaveLength(1);
  expect(await mcpStatus(running.url, String(fresh.body.access_token))).toBe(200);
  const rotated = await exchange(running.url, client, await codeFor(running.url, client));
  const newKid = JSON.parse(
    Buffer.from(String(rotated.body.access_token).split('.')[0]!, 'base64url').toString(),
  ).kid;
  expect(newKid).toBe(next);
  expect(await mcpStatus(running.url, String(rotated.body.access_token))).toBe(200);
});
