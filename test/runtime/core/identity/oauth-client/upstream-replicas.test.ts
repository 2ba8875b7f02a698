/**
 * Two replicas sharing the store and Redis (`REDIS_URL`), each with a call
 * that finds the same upstream access token expired: the refresh takes a
 * lock in the shared state, so while one replica's refresh is held at the
 * authorization server the other waits for the lock (seen on its shared
 * state), then reads the rotated tokens from the store. Exactly one refresh
 * grant reaches oidc-provider, and both calls go through.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../../support/gateway.ts';
import { TEST_REDIS_URL } from '../../../../support/redis.ts';
import {
  type OAuthUpstream,
  startOAuthUpstream,
} from '../../../../support/remote/oauth-upstream.ts';
import { connectSignedIn, expireStoredTokens } from '../../../../support/remote/signed-in.ts';

const environment = {
  PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
  REDIS_URL: TEST_REDIS_URL,
};
const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-sign-in-replicas-'));
let a: TestGateway;
let b: TestGateway;
let upstream: OAuthUpstream;

beforeAll(async () => {
  upstream = await startOAuthUpstream({ tenant: 'replicas' });
  a = await startTestGateway({ dataDir, environment });
  b = await startTestGateway({ dataDir, environment });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await upstream?.close();
});

it('refreshes once across replicas: the second waits for the lock, then uses the rotated tokens', async () => {
  const ctx = a.running.gateway.operator('test');
  const { connectionId, key } = await connectSignedIn(ctx, upstream, 'shared');
  const onA = await mcpClient(a.url, key);
  const onB = await mcpClient(b.url, key);
  expect((await callTool(onB, 'shared__get_weather', { city: 'Oslo' })).isError).toBeFalsy();
  await expireStoredTokens(a.running.gateway, connectionId);

  // B's shared state tells when B found the refresh lock held.
  const state = b.running.gateway.state;
  const add = state.add.bind(state);
  let bWaits = () => {};
  const bWaiting = new Promise<void>((resolve) => {
    bWaits = resolve;
  });
  state.add = async (stateKey, value, ttlMs) => {
    const added = await add(stateKey, value, ttlMs);
    if (stateKey.startsWith('upstream-oauth/refresh/') && !added) bWaits();
    return added;
  };

  const held = upstream.holdTokenRequests();
  const before = upstream.refreshes.length;
  const first = callTool(onA, 'shared__get_weather', { city: 'Oslo' });
  await held.arrived(1);
  const second = callTool(onB, 'shared__get_weather', { city: 'Bergen' });
  // Without the lock, B's own refresh would reach the server while A's is held.
  await Promise.race([bWaiting, held.arrived(2)]);
  held.release();
  const replies = await Promise.all([first, second]);
  state.add = add;
  await onA.close();
  await onB.close();
  expect(replies.map((r) => r.isError ?? false)).toEqual([false, false]);
  expect(upstream.refreshes.slice(before)).toEqual(['ok']);
});
