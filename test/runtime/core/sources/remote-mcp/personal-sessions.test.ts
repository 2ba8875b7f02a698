/**
 * Upstream sessions per credential identity (seed 003): two agents with
 * personal keys hold two sessions; one agent's bad reply forgets only its
 * own, the other's stays in use; an agent's resource reads and subscriptions
 * go out in its own; a wrong personal key is refused and written nowhere.
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
import { reasonOf } from '../../../../support/reason.ts';
import { startUpstream, type Upstream } from '../../../../support/remote/upstream-servers.ts';

const SHARED = 'key-shared-0001';
const KEY_A = 'key-alice-0002';
const KEY_B = 'key-bob-0003';
let hugeFor: string | undefined;

let gateway: TestGateway;
let ctx: OperatorContext;
let upstream: Upstream;
const clients: Record<string, Client> = {};
const keys: Record<string, string> = {};
let triedSessions: string[] = [];

beforeAll(async () => {
  upstream = await startUpstream('stateful', {
    resourcesAndPrompts: true,
    subscribable: true,
    requireHeader: { name: 'X-Api-Key', value: [SHARED, KEY_A, KEY_B] },
    sabotage: ({ tool, headers }) => {
      if (tool !== 'get_weather' || hugeFor === undefined || headers['x-api-key'] !== hugeFor)
        return undefined;
      hugeFor = undefined;
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: 'x'.repeat(1_100_000),
      };
    },
  });
  gateway = await startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } });
  ctx = gateway.running.gateway.operator('test');
  await connectUrl(ctx, {
    workspace: 'default',
    url: upstream.url,
    name: 'personal',
    headers: { 'X-Api-Key': SHARED },
  });
  await changeActions(ctx, 'review', { workspace: 'default', connection: 'personal', all: true });
  for (const [agent, key] of [
    ['alice', KEY_A],
    ['bob', KEY_B],
  ] as const) {
    const created = await createAgent(ctx, { workspace: 'default', name: agent });
    await grant(ctx, {
      workspace: 'default',
      agent,
      connection: 'personal',
      scope: 'all',
      credential: 'personal',
    });
    await setCredential(ctx, {
      workspace: 'default',
      connection: 'personal',
      agent,
      credential: { 'X-Api-Key': key },
    });
    keys[agent] = created.key;
  }
  // Before any agent connects (an agent's session opens its own upstream session).
  triedSessions = [...upstream.sessions];
  for (const [agent, key] of Object.entries(keys))
    clients[agent] = await mcpClient(gateway.url, key);
});
afterAll(async () => {
  for (const client of Object.values(clients)) await client.close();
  await gateway?.close();
  await upstream?.close();
});

/** Which key each upstream session was opened with, as the calls show it. */
const sessionsByKey = new Map<string, string>();
/** The session of the last call made with `key`. */
function sessionOf(key: string): string | undefined {
  return [...upstream.calls]
    .reverse()
    .find((call) => sessionsByKey.get(call.sessionId ?? '') === key)?.sessionId;
}

describe('personal credentials on a remote connection', () => {
  it('are tried on the server in a session that is ended at once (none left open before any call)', () => {
    // connect-url's probe and the two credentials' tries each opened one.
    expect(triedSessions).toHaveLength(3);
    expect(triedSessions.filter((id) => !upstream.ended.includes(id))).toEqual([]);
  });

  it('give each agent its own upstream session; a bad reply forgets only its own', async () => {
    const call = async (agent: string, key: string) => {
      const reply = await callTool(clients[agent]!, 'personal__get_weather', { city: agent });
      const last = upstream.calls.at(-1);
      if (last?.sessionId && reply.isError !== true) sessionsByKey.set(last.sessionId, key);
      return reply;
    };
    await call('alice', KEY_A);
    await call('bob', KEY_B);
    const aliceFirst = sessionOf(KEY_A);
    const bobFirst = sessionOf(KEY_B);
    expect(aliceFirst).toBeDefined();
    expect(bobFirst).toBeDefined();
    expect(aliceFirst).not.toBe(bobFirst);

    hugeFor = KEY_A;
    const [a, b] = await Promise.all([call('alice', KEY_A), call('bob', KEY_B)]);
    expect(a.structuredContent?.error?.code).toBe('mcp_remote_response_too_large');
    expect(b.structuredContent).toEqual({ city: 'bob', sky: 'sunny' });
    await call('alice', KEY_A);
    await call('bob', KEY_B);
    expect(sessionOf(KEY_A)).not.toBe(aliceFirst);
    expect(sessionOf(KEY_B)).toBe(bobFirst);
  });

  it("subscribes an agent to a resource in that agent's own session, with its own key", async () => {
    await callTool(clients.alice!, 'personal__get_weather', { city: 'alice' });
    const session = upstream.calls.at(-1)?.sessionId;
    const from = upstream.seenHeaders.length;
    await clients.alice!.subscribeResource({ uri: 'personal+memo://welcome' });
    await clients.alice!.unsubscribeResource({ uri: 'personal+memo://welcome' });
    expect(upstream.subscribed).toEqual(['memo://welcome']);
    expect(upstream.unsubscribed).toEqual(['memo://welcome']);
    const sent = upstream.seenHeaders.slice(from);
    expect(new Set(sent.map((headers) => headers['x-api-key']))).toEqual(new Set([KEY_A]));
    expect(new Set(sent.map((headers) => headers['mcp-session-id']))).toEqual(new Set([session]));
  });

  it("reads an agent's resources in that agent's own session, as its calls run", async () => {
    // A call first, so alice's session is open (a test before may have had it forgotten).
    await callTool(clients.alice!, 'personal__get_weather', { city: 'alice' });
    const from = upstream.seenHeaders.length;
    const resources = await clients.alice!.listResources();
    expect(resources.resources.length).toBeGreaterThan(0);
    await callTool(clients.alice!, 'personal__get_weather', { city: 'alice' });
    // Every request with alice's key went out in one upstream session.
    const sessions = new Set(
      upstream.seenHeaders
        .slice(from)
        .filter((headers) => headers['x-api-key'] === KEY_A)
        .map((headers) => headers['mcp-session-id']),
    );
    expect([...sessions]).toHaveLength(1);
  });

  it('refuses a personal key the server refuses, and writes nothing', async () => {
    const before = await ctx.store.credentials.all();
    expect(
      await reasonOf(
        setCredential(ctx, {
          workspace: 'default',
          connection: 'personal',
          agent: 'alice',
          credential: { 'X-Api-Key': 'wrong' },
        }),
      ),
    ).toEqual({ code: 'remote_credential_refused', field: 'credential' });
    expect(await ctx.store.credentials.all()).toEqual(before);
  });
});
