/**
 * Two replicas sharing the store and Redis (`REDIS_URL`): a 2025-11-25
 * agent (a real SDK v2 client) whose POSTs reach one replica and whose
 * standalone GET stream is held by the other. Its `resources/subscribe`
 * lands on the first, which subscribes upstream and hears the real SDK v2
 * server's `sendResourceUpdated`; the update reaches the agent on the
 * stream the second replica holds, told through the shared state.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { changeActions } from '../../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.ts';
import { TEST_REDIS_URL } from '../../../../support/redis.ts';
import { startUpstream, type Upstream } from '../../../../support/remote/upstream-servers.ts';

const environment = {
  PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
  REDIS_URL: TEST_REDIS_URL,
};
const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-resource-updates-replicas-'));
let a: TestGateway;
let b: TestGateway;
let upstream: Upstream;

beforeAll(async () => {
  upstream = await startUpstream('stateful', { subscribable: true });
  a = await startTestGateway({ dataDir, environment });
  b = await startTestGateway({ dataDir, environment });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await upstream?.close();
});

it('relays an update heard by the replica that subscribed to the stream another replica holds', async () => {
  const ctx = a.running.gateway.operator('test');
  await connectUrl(ctx, { workspace: 'default', url: upstream.url, name: 'notes' });
  // Its resources, pinned at connect, are served once reviewed.
  await changeActions(ctx, 'review', { workspace: 'default', connection: 'notes', all: true });
  const { key } = await createAgent(ctx, { workspace: 'default', name: 'far-watcher' });
  await grant(ctx, {
    workspace: 'default',
    agent: 'far-watcher',
    connection: 'notes',
    scope: 'reads',
  });

  // POSTs go to A, the standalone GET stream to B.
  const streamsOnB: string[] = [];
  const routed: typeof fetch = (input, init) => {
    if ((init?.method ?? 'GET') !== 'GET') return fetch(input, init);
    const url = new URL(String(input instanceof Request ? input.url : input));
    url.host = new URL(b.url).host;
    streamsOnB.push(url.pathname);
    return fetch(url, init);
  };
  const client = new Client({ name: 'far-agent', version: '1.0.0' });
  const updates: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    updates.push(notification.params.uri);
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
      fetch: routed,
    }),
  );
  try {
    await client.subscribeResource({ uri: 'notes+memo://welcome' });
    expect(upstream.subscribed).toEqual(['memo://welcome']);
    for (let i = 0; i < 200 && updates.length === 0; i++) {
      upstream.updateResource('memo://welcome');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(streamsOnB).toContain('/mcp');
    expect(updates[0]).toBe('notes+memo://welcome');
  } finally {
    await client.close();
  }
});
