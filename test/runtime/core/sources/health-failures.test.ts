/**
 * Seed 003's other half, against a real stateful SDK v2 server behind a
 * saboteur: what says the connection is unwell counts against its health. A
 * JSON-RPC error (`mcp_remote_error`), a reply that never comes
 * (`upstream_deadline_exceeded`) and HTTP errors (`mcp_remote_status`) move
 * it ok → degraded → error; a success makes it ok. A connection in error is
 * probed again in the background: it stays in error while its server keeps
 * failing, and comes back by itself once its server answers, calls included.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { changeActions } from '../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../runtime/core/operator/remote-connections.ts';
import {
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../support/gateway.ts';
import { manualProbe } from '../../../support/remote/manual-probe.ts';
import {
  type Sabotage,
  type SabotageRequest,
  startUpstream,
  type Upstream,
} from '../../../support/remote/upstream-servers.ts';

const NAME = 'wobbly';
type Failure = 'rpc-error' | 'hang' | 'http-503';
/** What the next tool calls get; `down`: every request, the probe's too. */
let failing: Failure | undefined;
let down = false;

function failureOf(kind: Failure, request: SabotageRequest): Sabotage {
  switch (kind) {
    case 'rpc-error':
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: request.id,
          error: { code: -32603, message: 'the weather service is down' },
        }),
      };
    case 'hang':
      return { hang: true, status: 0, body: '' };
    case 'http-503':
      return { status: 503, headers: { 'content-type': 'text/plain' }, body: 'unavailable' };
  }
}

let gateway: TestGateway;
let ctx: OperatorContext;
let upstream: Upstream;
let agent: Client;

async function connection() {
  return (await ctx.store.connections.byName(
    (await ctx.store.workspaces.byName('default'))!.id,
    NAME,
  ))!;
}

async function call(times: number): Promise<string[]> {
  const codes: string[] = [];
  for (let i = 0; i < times; i++) {
    const reply = await callTool(agent, `${NAME}__get_weather`, { city: 'Oslo' });
    codes.push(reply.structuredContent?.error?.code ?? (reply.isError ? 'error' : 'ok'));
  }
  return codes;
}

beforeAll(async () => {
  upstream = await startUpstream('stateful', {
    sabotage: (request) => {
      if (down) return failureOf('http-503', request);
      if (request.tool !== 'get_weather' || failing === undefined) return undefined;
      return failureOf(failing, request);
    },
  });
  gateway = await startTestGateway({
    environment: {
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
      // A reply that never comes fails at the deadline (its lowest), not after a minute.
      PORTCULLIS_UPSTREAM_DEADLINE_MS: '1000',
    },
  });
  ctx = gateway.running.gateway.operator('test');
  await connectUrl(ctx, { workspace: 'default', url: upstream.url, name: NAME });
  await changeActions(ctx, 'review', { workspace: 'default', connection: NAME, all: true });
  const { key } = await createAgent(ctx, { workspace: 'default', name: 'weather-watcher' });
  await grant(ctx, {
    workspace: 'default',
    agent: 'weather-watcher',
    connection: NAME,
    scope: 'all',
  });
  agent = await mcpClient(gateway.url, key);
});
afterAll(async () => {
  await agent?.close();
  await gateway?.close();
  await upstream?.close();
});

describe('failures that count against health', () => {
  // Each test starts with a server that answers.
  beforeEach(() => {
    failing = undefined;
    down = false;
  });

  it('JSON-RPC errors, timeouts and HTTP errors degrade it, then put it in error; a success makes it ok', async () => {
    expect((await connection()).health).toBe('ok');
    failing = 'rpc-error';
    expect(await call(2)).toEqual(['mcp_remote_error', 'mcp_remote_error']);
    expect((await connection()).health).toBe('degraded');
    failing = undefined;
    expect(await call(1)).toEqual(['ok']);
    expect((await connection()).health).toBe('ok');

    failing = 'hang';
    expect(await call(2)).toEqual(['upstream_deadline_exceeded', 'upstream_deadline_exceeded']);
    expect((await connection()).health).toBe('degraded');
    failing = 'http-503';
    expect(await call(3)).toEqual(['mcp_remote_status', 'mcp_remote_status', 'mcp_remote_status']);
    expect((await connection()).health).toBe('error');
    expect((await connection()).failureStreak).toBe(5);
  });

  it('is probed again in the background: still in error while the server fails, ok once it answers', async () => {
    // Driven into error by calls the server fails.
    failing = 'http-503';
    await call(5);
    expect((await connection()).health).toBe('error');
    failing = undefined;
    down = true;
    let clock = Date.now();
    const probe = manualProbe(ctx, { now: () => new Date(clock) });
    const asked = upstream.seenHeaders.length;
    await probe.check();
    expect(upstream.seenHeaders.length).toBeGreaterThan(asked);
    expect((await connection()).health).toBe('error');

    down = false;
    // Past the backoff the failed probe set, the next probe finds the server answering.
    clock += 60_000;
    await probe.check();
    expect((await connection()).health).toBe('ok');
    expect(await call(1)).toEqual(['ok']);
  });
});
