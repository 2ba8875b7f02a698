/** An agent's cancellation reaches a 2025-11-25 upstream: its handler sees the call cancelled. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeActions } from '../../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import { mcpClient, startTestGateway, type TestGateway } from '../../../../support/gateway.ts';
import { startUpstream, type Upstream } from '../../../../support/remote/upstream-servers.ts';

let gateway: TestGateway;
let upstream: Upstream;
let client: Client;

beforeAll(async () => {
  [gateway, upstream] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startUpstream('stateful', { slowTool: true }),
  ]);
  const ctx = gateway.running.gateway.operator('test');
  await connectUrl(ctx, { workspace: 'default', url: upstream.url, name: 'slow' });
  await changeActions(ctx, 'review', { workspace: 'default', connection: 'slow', all: true });
  const { key } = await createAgent(ctx, { workspace: 'default', name: 'impatient' });
  await grant(ctx, { workspace: 'default', agent: 'impatient', connection: 'slow', scope: 'all' });
  client = await mcpClient(gateway.url, key);
});
afterAll(async () => {
  await client?.close();
  await gateway?.close();
  await upstream?.close();
});

describe('cancellation', () => {
  it('is forwarded upstream when the agent cancels a call', async () => {
    const abort = new AbortController();
    const call = client.callTool({ name: 'slow__slow', arguments: {} }, undefined, {
      signal: abort.signal,
    });
    for (let i = 0; i < 100 && !upstream.calls.some((c) => c.tool === 'slow'); i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    abort.abort();
    await expect(call).rejects.toThrow();
    for (let i = 0; i < 100 && upstream.cancelled.length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(upstream.cancelled).toEqual(['slow']);
  });
});
