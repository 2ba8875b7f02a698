/** A server that offers only the 2024-11-05 HTTP+SSE transport connects, records it, and serves calls. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeActions } from '../../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import { refreshRemote } from '../../../../../runtime/core/operator/remote-refresh.ts';
import {
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../../support/gateway.ts';
import { type SseUpstream, startSseUpstream } from '../../../../support/remote/sse-upstream.ts';

let gateway: TestGateway;
let ctx: OperatorContext;
let upstream: SseUpstream;
let client: Client;
/** What connecting the server (once, for every test) said. */
let connected: Awaited<ReturnType<typeof connectUrl>>;

beforeAll(async () => {
  [gateway, upstream] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startSseUpstream(),
  ]);
  ctx = gateway.running.gateway.operator('test');
  connected = await connectUrl(ctx, { workspace: 'default', url: upstream.url, name: 'old' });
});
afterAll(async () => {
  await client?.close();
  await gateway?.close();
  await upstream?.close();
});

describe('the HTTP+SSE fallback', () => {
  it('connects a server that only speaks it, and records the transport and revision', async () => {
    expect(connected.next).toBe('review');
    expect(connected.endpoint).toMatchObject({
      transport: 'sse',
      revision: '2024-11-05',
      serverInfo: { name: 'fixture-sse', version: '0.9.0' },
    });
    expect(connected.tools?.tools).toEqual(['get_weather']);
    expect((await refreshRemote(ctx, { workspace: 'default', connection: 'old' })).changed).toEqual(
      [],
    );
  });

  it('forwards calls over it', async () => {
    await changeActions(ctx, 'review', { workspace: 'default', connection: 'old', all: true });
    const { key } = await createAgent(ctx, { workspace: 'default', name: 'nostalgic' });
    await grant(ctx, { workspace: 'default', agent: 'nostalgic', connection: 'old', scope: 'all' });
    client = await mcpClient(gateway.url, key);
    for (const city of ['Oslo', 'Rome']) {
      const reply = await callTool(client, 'old__get_weather', { city });
      expect(reply.structuredContent).toEqual({ city, sky: 'sunny' });
    }
  });
});
