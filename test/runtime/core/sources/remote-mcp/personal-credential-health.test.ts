/**
 * A personal grant on a remote connection, against a real SDK v2 server
 * that checks a key on every request (seed 003: one caller's failures do
 * not degrade a connection others share): an agent with no key of its own
 * is refused `credential_missing` before anything is sent (tools, prompts,
 * resources), and an agent whose own key the server stopped taking gets
 * its 401s while the connection's health stays ok for everyone.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeActions } from '../../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import { setCredential } from '../../../../../runtime/core/operator/connections.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import {
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../../support/gateway.ts';
import { startUpstream, type Upstream } from '../../../../support/remote/upstream-servers.ts';

const NAME = 'mine';
const SHARED = 'key-shared-7001';
const KEY_BOB = 'key-bob-7002';
/** The keys the server takes now (bob's is taken away in a test). */
const accepted = [SHARED, KEY_BOB];

let gateway: TestGateway;
let ctx: OperatorContext;
let upstream: Upstream;
const clients: Record<string, Client> = {};

async function health() {
  const workspace = (await ctx.store.workspaces.byName('default'))!;
  return (await ctx.store.connections.byName(workspace.id, NAME))!.health;
}

const codeOf = async (request: Promise<unknown>) =>
  (
    (await request.then(
      () => undefined,
      (e: unknown) => e,
    )) as { data?: { code?: string } } | undefined
  )?.data?.code;

beforeAll(async () => {
  upstream = await startUpstream('stateful', {
    resourcesAndPrompts: true,
    requireHeader: { name: 'X-Api-Key', value: accepted },
  });
  gateway = await startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } });
  ctx = gateway.running.gateway.operator('test');
  await connectUrl(ctx, {
    workspace: 'default',
    url: upstream.url,
    name: NAME,
    headers: { 'X-Api-Key': SHARED },
  });
  await changeActions(ctx, 'review', { workspace: 'default', connection: NAME, all: true });
  for (const [agent, mode] of [
    ['alice', 'personal'],
    ['bob', 'personal'],
    ['carol', 'shared'],
  ] as const) {
    const { key } = await createAgent(ctx, { workspace: 'default', name: agent });
    await grant(ctx, {
      workspace: 'default',
      agent,
      connection: NAME,
      scope: 'all',
      credential: mode,
    });
    clients[agent] = await mcpClient(gateway.url, key);
  }
  await setCredential(ctx, {
    workspace: 'default',
    connection: NAME,
    agent: 'bob',
    credential: { 'X-Api-Key': KEY_BOB },
  });
});
afterAll(async () => {
  for (const client of Object.values(clients)) await client.close();
  await gateway?.close();
  await upstream?.close();
});

describe('a personal grant on a remote connection', () => {
  it('without a credential of its own is refused credential_missing, and nothing is sent', async () => {
    const sent = upstream.seenHeaders.length;
    for (let i = 0; i < 6; i++) {
      const reply = await callTool(clients.alice!, `${NAME}__get_weather`, { city: 'Oslo' });
      expect(reply.structuredContent?.error?.code).toBe('credential_missing');
    }
    expect(
      await codeOf(clients.alice!.getPrompt({ name: `${NAME}__greet`, arguments: { who: 'A' } })),
    ).toBe('credential_missing');
    expect(await codeOf(clients.alice!.readResource({ uri: `${NAME}+memo://welcome` }))).toBe(
      'credential_missing',
    );
    expect(upstream.seenHeaders.length).toBe(sent);
    expect(await health()).toBe('ok');
  });

  it("whose own key the server refuses fails its own calls, not the connection's health", async () => {
    const ok = await callTool(clients.bob!, `${NAME}__get_weather`, { city: 'Bergen' });
    expect(ok.structuredContent).toEqual({ city: 'Bergen', sky: 'sunny' });
    accepted.splice(accepted.indexOf(KEY_BOB), 1);
    await upstream.forgetSessions();
    for (let i = 0; i < 6; i++) {
      const reply = await callTool(clients.bob!, `${NAME}__get_weather`, { city: 'Bergen' });
      expect(reply.structuredContent?.error?.code).toBe('mcp_remote_status');
      expect(reply.structuredContent?.error?.detail).toMatchObject({ status: 401 });
    }
    expect(await health()).toBe('ok');
    const shared = await callTool(clients.carol!, `${NAME}__get_weather`, { city: 'Tromsø' });
    expect(shared.structuredContent).toEqual({ city: 'Tromsø', sky: 'sunny' });
  });
});
