/**
 * Seed 003 against a real stateful SDK v2 server behind a saboteur: a reply
 * too large, not JSON, or without the requested id fails only that call
 * (its own reason code; `maxBytes` for the large one), health stays ok, and
 * the caller's next call opens a new upstream session (a result with no
 * `content` array too, found malformed after the reply was read); a 404 for the session
 * opens a new one once and the call succeeds; a run of HTTP errors degrades
 * health. A secret canary sent as a custom header appears in no reply,
 * error, audit event or listing.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLog } from '../../../../../runtime/compose/log.ts';
import { changeActions } from '../../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import { connectionViews } from '../../../../../runtime/core/operator/connection-views.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import {
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../../support/gateway.ts';
import {
  type Sabotage,
  startUpstream,
  type Upstream,
} from '../../../../support/remote/upstream-servers.ts';

const CANARY = 'canary-91b2c3d4e5f60718';
const NAME = 'flaky';

type Bad =
  | 'huge'
  | 'invalid-json'
  | 'wrong-id'
  | 'no-content'
  | 'session-404'
  | 'http-500'
  | undefined;
let next: Bad;
let repeat = false;

function sabotage(bad: Bad, id: unknown): Sabotage | undefined {
  switch (bad) {
    case 'huge':
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          result: { content: [{ type: 'text', text: 'x'.repeat(2_000_000) }] },
        }),
      };
    case 'invalid-json':
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0",',
      };
    case 'wrong-id':
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 987_654, result: { content: [] } }),
      };
    case 'no-content':
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id, result: { structuredContent: {} } }),
      };
    case 'session-404':
      return {
        status: 404,
        body: '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}',
      };
    case 'http-500':
      return { status: 500, headers: { 'content-type': 'text/plain' }, body: `boom ${CANARY}` };
    default:
      return undefined;
  }
}

let gateway: TestGateway;
let ctx: OperatorContext;
let upstream: Upstream;
let alice: Client;
let bob: Client;
const logged: string[] = [];

async function health() {
  return (await ctx.store.connections.byName(
    (await ctx.store.workspaces.byName('default'))!.id,
    NAME,
  ))!.health;
}

beforeAll(async () => {
  upstream = await startUpstream('stateful', {
    requireHeader: { name: 'X-Api-Key', value: CANARY },
    sabotage: ({ tool, id }) => {
      if (tool !== 'get_weather' || next === undefined) return undefined;
      const bad = next;
      if (!repeat) next = undefined;
      return sabotage(bad, id);
    },
  });
  gateway = await startTestGateway({
    environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' },
    log: createLog({ level: 'debug', destination: { write: (line: string) => logged.push(line) } }),
  });
  ctx = gateway.running.gateway.operator('test');
  await connectUrl(ctx, {
    workspace: 'default',
    url: upstream.url,
    name: NAME,
    headers: { 'X-Api-Key': CANARY },
  });
  await changeActions(ctx, 'review', { workspace: 'default', connection: NAME, all: true });
  for (const agent of ['alice', 'bob']) {
    await createAgent(ctx, { workspace: 'default', name: agent }).then(async ({ key }) => {
      await grant(ctx, { workspace: 'default', agent, connection: NAME, scope: 'all' });
      const client = await mcpClient(gateway.url, key);
      if (agent === 'alice') alice = client;
      else bob = client;
    });
  }
});
afterAll(async () => {
  await alice?.close();
  await bob?.close();
  await gateway?.close();
  await upstream?.close();
});
beforeEach(() => {
  next = undefined;
  repeat = false;
});

describe('a bad reply fails only its call', () => {
  it.each([
    ['too large', 'huge' as const, 'mcp_remote_response_too_large'],
    ['not JSON', 'invalid-json' as const, 'mcp_remote_invalid_json'],
    ['without the requested id', 'wrong-id' as const, 'mcp_remote_malformed_response'],
    ['with no content array', 'no-content' as const, 'mcp_remote_malformed_response'],
  ])('a reply %s: its own code, health ok, a new session next', async (_, bad, code) => {
    await callTool(alice, `${NAME}__get_weather`, { city: 'Oslo' });
    const sessionBefore = upstream.calls.at(-1)?.sessionId;
    // Twice in a row: a run of failures that count would degrade health.
    next = bad;
    const first = await callTool(alice, `${NAME}__get_weather`, { city: 'Oslo' });
    expect(first.structuredContent?.error?.code).toBe(code);
    next = bad;
    const failed = await callTool(alice, `${NAME}__get_weather`, { city: 'Oslo' });
    expect(failed.structuredContent?.error?.code).toBe(code);
    if (bad === 'huge') {
      expect(failed.structuredContent?.error?.detail).toMatchObject({ maxBytes: 1_048_576 });
      expect(failed.structuredContent?.error?.message).toMatch(/smaller/);
    }
    expect(await health()).toBe('ok');
    const after = await callTool(alice, `${NAME}__get_weather`, { city: 'Oslo' });
    expect(after.structuredContent).toEqual({ city: 'Oslo', sky: 'sunny' });
    expect(upstream.calls.at(-1)?.sessionId).not.toBe(sessionBefore);
    expect(
      (await connectionViews(ctx, { workspace: 'default' })).find((c) => c.name === NAME)?.health,
    ).toBe('ok');
  });

  it('a 404 for the session opens a new one once, and the call succeeds', async () => {
    await callTool(alice, `${NAME}__get_weather`, { city: 'Oslo' });
    const opened = upstream.sessions.length;
    next = 'session-404';
    const reply = await callTool(alice, `${NAME}__get_weather`, { city: 'Oslo' });
    expect(reply.structuredContent).toEqual({ city: 'Oslo', sky: 'sunny' });
    expect(upstream.sessions.length).toBe(opened + 1);
  });

  it('two agents at once, one with a bad reply: the other succeeds, health stays ok', async () => {
    next = 'huge';
    const [a, b] = await Promise.all([
      callTool(alice, `${NAME}__get_weather`, { city: 'Oslo' }),
      callTool(bob, `${NAME}__get_weather`, { city: 'Bergen' }),
    ]);
    const codes = [a, b].map((reply) => reply.structuredContent?.error?.code ?? 'ok').sort();
    expect(codes).toEqual(['mcp_remote_response_too_large', 'ok']);
    expect(await health()).toBe('ok');
  });

  it('HTTP errors count against health: degraded after a run of them, ok again after a success', async () => {
    next = 'http-500';
    repeat = true;
    for (let i = 0; i < 2; i++) {
      const reply = await callTool(alice, `${NAME}__get_weather`, { city: 'Oslo' });
      expect(reply.structuredContent?.error?.code).toBe('mcp_remote_status');
    }
    expect(await health()).toBe('degraded');
    next = undefined;
    repeat = false;
    await callTool(alice, `${NAME}__get_weather`, { city: 'Oslo' });
    expect(await health()).toBe('ok');
  });

  it('never shows the header canary: not in replies, errors, audit, listings or the log', async () => {
    next = 'http-500';
    const reply = await callTool(alice, `${NAME}__get_weather`, { city: 'Oslo' });
    expect(JSON.stringify(reply)).not.toContain(CANARY);
    const events = await ctx.store.audit.query({ limit: 500 });
    expect(JSON.stringify(events)).not.toContain(CANARY);
    expect(JSON.stringify(await connectionViews(ctx, { workspace: 'default' }))).not.toContain(
      CANARY,
    );
    expect(logged.join('\n')).not.toContain(CANARY);
    // It did go upstream, as the header it was given.
    expect(upstream.seenHeaders.some((h) => h['x-api-key'] === CANARY)).toBe(true);
  });
});
