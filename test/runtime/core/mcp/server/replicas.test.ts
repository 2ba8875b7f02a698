/**
 * Two endpoint replicas behind one shared state (in-process, and real Redis):
 * a legacy session opened on one is served by the other; ending it, a
 * cancellation, and a client's answer to a request posted to the other
 * replica all reach the one that holds what they are for.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openSharedState } from '../../../../../runtime/compose/open-shared-state.ts';
import { GatewayError } from '../../../../../runtime/core/base/errors.ts';
import { MemorySharedState } from '../../../../../runtime/core/ports/shared-state/memory-shared-state.ts';
import type { SharedState } from '../../../../../runtime/core/ports/shared-state/shared-state.ts';
import { type FixtureServer, startFixtureServer } from '../../../../support/mcp/fixture-server.ts';
import {
  initializeRequest,
  openSession,
  openStream,
  raw,
  rpc,
} from '../../../../support/mcp/raw-http.ts';
import { TEST_REDIS_URL } from '../../../../support/redis.ts';

const REDIS_URL = TEST_REDIS_URL;

describe.each(['in-process', 'Redis'] as const)('two replicas sharing %s state', (kind) => {
  let states: SharedState[];
  let one: FixtureServer;
  let two: FixtureServer;

  beforeAll(async () => {
    if (kind === 'in-process') {
      const state = new MemorySharedState();
      states = [state];
      one = await startFixtureServer({ state });
      two = await startFixtureServer({ state });
    } else {
      const keyPrefix = `portcullis-test-${randomBytes(4).toString('hex')}:`;
      states = await Promise.all([
        openSharedState({ redisUrl: REDIS_URL, keyPrefix }),
        openSharedState({ redisUrl: REDIS_URL, keyPrefix }),
      ]);
      one = await startFixtureServer({ state: states[0]! });
      two = await startFixtureServer({ state: states[1]! });
    }
  });

  afterAll(async () => {
    await one?.close();
    await two?.close();
    for (const state of states ?? []) await state.close();
  });

  it('serves a session on the replica that did not open it, to its owner only', async () => {
    const session = await openSession(one, 'alice');
    const listed = await raw(two, { session, body: rpc('tools/list') });
    expect(listed.status).toBe(200);
    expect(listed.json.result.tools.length).toBeGreaterThan(0);
    expect((await raw(two, { agent: 'bob', session, body: rpc('ping') })).status).toBe(404);
  });

  it('ends a session everywhere when either replica is told to', async () => {
    const session = await openSession(one, 'alice');
    expect((await raw(two, { session, body: rpc('ping') })).status).toBe(200);
    expect((await raw(two, { method: 'DELETE', session })).status).toBe(204);
    await vi.waitFor(async () =>
      expect((await raw(one, { session, body: rpc('ping') })).status).toBe(404),
    );
  });

  it('cancels a call running on one replica from a notification posted to the other', async () => {
    const session = await openSession(one, 'alice');
    const id = 4711;
    const tag = `${kind}-replica-cancel`;
    const call = raw(one, {
      session,
      body: rpc('tools/call', { name: 'hold', arguments: { tag } }, id),
    });
    await vi.waitFor(() => expect(one.backend.holding.has(tag)).toBe(true));
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } };
    expect((await raw(two, { session, body: cancel })).status).toBe(202);
    await call;
    expect(one.backend.aborted.has(tag)).toBe(true);
  });

  it('gives a call the answer its client posted to the other replica', async () => {
    const opened = await raw(one, {
      body: rpc('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: {} },
        clientInfo: { name: 'legacy', version: '1' },
      }),
    });
    const session = opened.headers['mcp-session-id'] as string;
    const stream = await openStream(one, {
      session,
      body: rpc('tools/call', { name: 'ask', arguments: { nonce: kind } }, 9),
    });
    const asked = await stream.next();
    const answered = await raw(two, {
      session,
      body: {
        jsonrpc: '2.0',
        id: asked.id,
        result: { action: 'accept', content: { name: 'Lin' } },
      },
    });
    expect(answered.status).toBe(202);
    const [final] = await stream.rest();
    expect(final.result.structuredContent).toEqual({ greeted: 'Lin', state: { nonce: kind } });
  });
});

/** A shared state that can be taken down and brought back, as a Redis outage would. */
function flaky(state: SharedState): SharedState & { down: boolean } {
  const control = { down: false };
  return new Proxy(state, {
    get(target, property) {
      if (property === 'down') return control.down;
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        control.down && property !== 'close'
          ? Promise.reject(new GatewayError('state_unavailable', 'the shared state is down'))
          : value.apply(target, args);
    },
    set(_target, property, value) {
      if (property !== 'down') return false;
      control.down = value as boolean;
      return true;
    },
  }) as SharedState & { down: boolean };
}

describe('replicas while the shared state is down', () => {
  const state = flaky(new MemorySharedState());
  let one: FixtureServer;
  let two: FixtureServer;

  beforeAll(async () => {
    one = await startFixtureServer({ state });
    two = await startFixtureServer({ state });
  });

  afterAll(async () => {
    await one?.close();
    await two?.close();
    await state.close();
  });

  it('answer 503 state_unavailable with the request id, then recover when it is back', async () => {
    state.down = true;
    const refused = await raw(one, { body: { ...initializeRequest(), id: 41 } });
    expect({ status: refused.status, id: refused.json.id }).toEqual({ status: 503, id: 41 });
    state.down = false;
    // The subscription that failed is made again: sessions work, and reach the other replica.
    const session = await openSession(one, 'alice');
    expect((await raw(two, { session, body: rpc('ping') })).status).toBe(200);
  });

  it('do not tell a client its session is gone because the state did not answer', async () => {
    const session = await openSession(one, 'alice');
    state.down = true;
    const reply = await raw(two, { session, body: rpc('ping', undefined, 42) });
    state.down = false;
    expect({ status: reply.status, id: reply.json.id }).toEqual({ status: 503, id: 42 });
    expect((await raw(two, { session, body: rpc('ping') })).status).toBe(200);
  });
});
