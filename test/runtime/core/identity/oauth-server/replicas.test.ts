/**
 * Two replicas of the gateway behind one public address, sharing the store
 * and Redis (`REDIS_URL`): the consent page opened on one is approved on the
 * other, the code it gives is redeemed on the first, its replay is caught on
 * the second, and the refresh rotates on either. Codes live in the shared
 * state, not in a process; a pending consent travels sealed in its form.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openConsentPage, postConsent } from '../../../../support/oauth/consent-bot.ts';
import {
  MEMBER,
  type OAuthGateway,
  startOAuthGateway,
} from '../../../../support/oauth/oauth-gateway.ts';
import {
  authorizeUrl,
  codeFor,
  exchange,
  pkce,
  registerClient,
  tokenRequest,
} from '../../../../support/oauth/raw-flow.ts';
import { TEST_REDIS_URL } from '../../../../support/redis.ts';

const environment = {
  PORTCULLIS_PUBLIC_URL: 'https://gateway.example.test',
  REDIS_URL: TEST_REDIS_URL,
};
const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-oauth-replicas-'));
const replicas: OAuthGateway[] = [];
afterAll(async () => {
  for (const replica of replicas) await replica.close();
});

it('lets any replica carry on a sign-in, a code or a refresh another one started', async () => {
  replicas.push(await startOAuthGateway({ dataDir, environment }));
  replicas.push(await startOAuthGateway({ dataDir, environment }));
  const [a, b] = replicas as [OAuthGateway, OAuthGateway];
  const client = await registerClient(a.url);
  const { verifier, challenge } = pkce();
  const page = await openConsentPage(authorizeUrl(a.url, client, { code_challenge: challenge }));
  if (!('fields' in page)) throw new Error('no consent page');
  const approved = await postConsent(b.url, page, MEMBER);
  expect(approved.status).toBe(303);
  const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
  const first = await exchange(a.url, client, { code, verifier });
  expect(first.status).toBe(200);
  expect((await exchange(b.url, client, { code, verifier })).body.error).toBe('invalid_grant');
  const refreshed = await tokenRequest(b.url, {
    grant_type: 'refresh_token',
    client_id: client.clientId,
    refresh_token: String(first.body.refresh_token),
  });
  // The replay on b revoked the family the code started, on every replica.
  expect(refreshed.body.error).toBe('invalid_grant');

  const again = await exchange(b.url, client, await codeFor(a.url, client));
  const rotated = await tokenRequest(a.url, {
    grant_type: 'refresh_token',
    client_id: client.clientId,
    refresh_token: String(again.body.refresh_token),
  });
  expect(rotated.status).toBe(200);
});
