/**
 * A 2025-11-25 upstream that says its tool list changed has it discovered
 * again by the gateway on its own: the changed tool is blocked until reviewed.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeActions } from '../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../runtime/core/operator/context.ts';
import { grant } from '../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../runtime/core/operator/remote-connections.ts';
import { callTool, mcpClient, startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { startUpstream, type Upstream } from '../../support/remote/upstream-servers.ts';

let gateway: TestGateway;
let ctx: OperatorContext;
let upstream: Upstream;
let client: Client;

const until = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 150 && !(await check()); i++) await new Promise((r) => setTimeout(r, 20));
};

beforeAll(async () => {
  [gateway, upstream] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startUpstream('stateful'),
  ]);
  ctx = gateway.running.gateway.operator('test');
  await connectUrl(ctx, { workspace: 'default', url: upstream.url, name: 'listening' });
  await changeActions(ctx, 'review', { workspace: 'default', connection: 'listening', all: true });
  const { key } = await createAgent(ctx, { workspace: 'default', name: 'listener' });
  await grant(ctx, {
    workspace: 'default',
    agent: 'listener',
    connection: 'listening',
    scope: 'all',
  });
  client = await mcpClient(gateway.url, key);
});
afterAll(async () => {
  await client?.close();
  await gateway?.close();
  await upstream?.close();
});

describe('notifications/tools/list_changed', () => {
  it('sends a changed tool back to review without anyone running refresh', async () => {
    const first = await callTool(client, 'listening__get_weather', { city: 'Oslo' });
    expect(first.structuredContent).toEqual({ city: 'Oslo', sky: 'sunny' });
    const connection = (await ctx.store.connections.byName(
      (await ctx.store.workspaces.byName('default'))!.id,
      'listening',
    ))!;
    // The session's listening stream is open once the server has seen its GET.
    await new Promise((resolve) => setTimeout(resolve, 200));
    upstream.setDescription('Changed behind your back.');
    upstream.notifyToolsChanged();
    const described = async () =>
      (await ctx.store.remoteTools.forConnection(connection.id)).find(
        (t) => t.name === 'get_weather',
      )?.contract.description === 'Changed behind your back.';
    await until(described);
    expect(await described()).toBe(true);
    const blocked = await callTool(client, 'listening__get_weather', { city: 'Oslo' });
    expect(blocked.structuredContent?.error?.code).toBe('contract_changed');
  });
});
