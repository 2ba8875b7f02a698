/**
 * Runs against the Redis at PORTCULLIS_TEST_REDIS_URL (default: the local
 * one). Every key and channel is under a random prefix of this run, and every
 * key under it is deleted at the end.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { inspect } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RedisSharedState } from '../../../../runtime/adapters/redis/redis-shared-state.ts';
import { openSharedState } from '../../../../runtime/compose/open-shared-state.ts';
import { GatewayError } from '../../../../runtime/core/base/errors.ts';
import { MemorySharedState } from '../../../../runtime/core/ports/shared-state/memory-shared-state.ts';
import type { SharedState } from '../../../../runtime/core/ports/shared-state/shared-state.ts';
import { TEST_REDIS_URL } from '../../../support/redis.ts';
import { describeSharedStateContract } from '../../core/ports/shared-state/shared-state-contract.ts';
import {
  anInbox,
  eventually,
  LONG_TTL,
  outcomeOf,
  together,
} from '../../core/ports/shared-state/state-fixtures.ts';

const REDIS_URL = TEST_REDIS_URL;
const RUN_PREFIX = `portcullis-test:${randomBytes(6).toString('hex')}:`;
let prefixes = 0;
const newPrefix = () => `${RUN_PREFIX}${++prefixes}:`;

/** The test's own view of the server, to check what the state wrote. */
const admin = new Redis(REDIS_URL, { lazyConnect: true });

afterAll(async () => {
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', `${RUN_PREFIX}*`, 'COUNT', 1000);
    if (keys.length > 0) await admin.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await admin.quit();
});

describeSharedStateContract('Redis', {
  open: (options) => RedisSharedState.open({ url: REDIS_URL, keyPrefix: newPrefix(), ...options }),
  elapse: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
});

/**
 * The ids of the connections this process's shared states opened (they carry
 * its pid in their name): other test files on the same Redis open their own.
 */
async function stateConnections(): Promise<Set<string>> {
  const list = (await admin.client('LIST')) as string;
  const name = ` name=portcullis-state:${process.pid} `;
  return new Set(
    list
      .split('\n')
      .filter((line) => line.includes(name))
      .map((line) => /^id=(\d+)/.exec(line)?.[1] ?? ''),
  );
}

/** What is in `after` and not in `before`. */
function added(before: Set<string>, after: Set<string>): string[] {
  return [...after].filter((id) => !before.has(id));
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('the Redis shared state', () => {
  const opened: SharedState[] = [];
  async function replicas(count: number, keyPrefix = newPrefix()): Promise<RedisSharedState[]> {
    const states = await together(count, () =>
      RedisSharedState.open({ url: REDIS_URL, keyPrefix }),
    );
    opened.push(...states);
    return states;
  }

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((state) => state.close()));
  });

  it('shares keys between replicas of one prefix, and their races have one winner', async () => {
    const [a, b] = (await replicas(2)) as [RedisSharedState, RedisSharedState];
    await a.set('session', 'on a');
    expect(await b.get('session')).toBe('on a');

    const won = await together(20, (n) => (n % 2 === 0 ? a : b).add('refresh lock', `${n}`));
    expect(won.filter(Boolean)).toHaveLength(1);

    await a.set('code', 'single use');
    const taken = await together(20, (n) => (n % 2 === 0 ? a : b).take('code'));
    expect(taken.filter((value) => value !== undefined)).toEqual(['single use']);

    const counts = await together(20, (n) => (n % 2 === 0 ? a : b).increment('rate', LONG_TTL));
    expect(new Set(counts).size).toBe(20);
    expect(Math.max(...counts)).toBe(20);
  });

  it('delivers a message to the subscribers of every replica, the publisher’s own included', async () => {
    const [a, b, c] = (await replicas(3)) as [RedisSharedState, RedisSharedState, RedisSharedState];
    const [onA, onB, onC] = [anInbox(), anInbox(), anInbox()];
    await a.subscribe('tools changed', onA.listener);
    await b.subscribe('tools changed', onB.listener);
    await c.subscribe('tools changed', onC.listener);
    await b.publish('tools changed', 'agent 1');
    await eventually(() => [onA, onB, onC].every((inbox) => inbox.messages.length === 1));

    await c.close();
    await a.publish('tools changed', 'after c closed');
    await eventually(() => onA.messages.length === 2 && onB.messages.length === 2);
    expect([onA.messages, onB.messages, onC.messages]).toEqual([
      ['agent 1', 'after c closed'],
      ['agent 1', 'after c closed'],
      ['agent 1'],
    ]);
  });

  it('stores each key and sends each message under its prefix', async () => {
    const keyPrefix = newPrefix();
    const [state] = (await replicas(1, keyPrefix)) as [RedisSharedState];
    await state.set('session', 'value', LONG_TTL);
    expect(await admin.get(`${keyPrefix}session`)).toBe('value');
    expect(await admin.pttl(`${keyPrefix}session`)).toBeGreaterThan(0);
    expect(await admin.exists('session')).toBe(0);

    const listener = new Redis(REDIS_URL, { lazyConnect: true });
    try {
      const heard: [string, string][] = [];
      listener.on('message', (channel: string, message: string) => heard.push([channel, message]));
      await listener.subscribe(`${keyPrefix}news`);
      await state.publish('news', 'prefixed');
      await eventually(() => heard.length === 1);
      expect(heard).toEqual([[`${keyPrefix}news`, 'prefixed']]);
    } finally {
      await listener.quit();
    }
  });

  it('puts keys under portcullis: when no prefix is given', async () => {
    const state = await RedisSharedState.open({ url: REDIS_URL });
    const key = `${RUN_PREFIX}default`;
    try {
      await state.set(key, 'value', LONG_TTL);
      expect(await admin.get(`portcullis:${key}`)).toBe('value');
    } finally {
      await admin.del(`portcullis:${key}`);
      await state.close();
    }
  });

  it('holds one Redis subscription per channel, however many listeners, and none once they leave', async () => {
    const keyPrefix = newPrefix();
    const [state] = (await replicas(1, keyPrefix)) as [RedisSharedState];
    const subscribers = async () =>
      ((await admin.pubsub('NUMSUB', `${keyPrefix}news`)) as [string, number])[1];
    const first = await state.subscribe('news', () => {});
    const second = await state.subscribe('news', () => {});
    expect(await subscribers()).toBe(1);
    await first.unsubscribe();
    expect(await subscribers()).toBe(1);
    await second.unsubscribe();
    expect(await subscribers()).toBe(0);
  });

  it('opens its subscriber connection on the first subscribe, and close ends both', async () => {
    const before = await stateConnections();
    const [state] = (await replicas(1)) as [RedisSharedState];
    expect(added(before, await stateConnections())).toHaveLength(1);
    await state.subscribe('news', () => {});
    const mine = added(before, await stateConnections());
    expect(mine).toHaveLength(2);
    await state.close();
    await eventually(async () => added(before, await stateConnections()).length === 0);
  });

  it('fails a call with state_unavailable while its connection is down, and serves again once back', async () => {
    const before = await stateConnections();
    const [state] = (await replicas(1)) as [RedisSharedState];
    const [connection] = added(before, await stateConnections());
    await state.set('session', 'kept');
    await admin.client('KILL', 'ID', connection!);
    // Until ioredis has reconnected a call may fail, and then only with state_unavailable.
    const outcomes = new Set<string>();
    await eventually(async () => {
      const outcome = await outcomeOf(state.get('session'));
      outcomes.add(outcome);
      return outcome === 'resolved';
    });
    // outcomeOf rethrows anything but a GatewayError or a TypeError.
    expect([...outcomes].filter((outcome) => outcome !== 'state_unavailable')).toEqual([
      'resolved',
    ]);
    expect(await state.get('session')).toBe('kept');
  });

  it('subscribes again when its subscriber connection comes back', async () => {
    const before = await stateConnections();
    const [state] = (await replicas(1)) as [RedisSharedState];
    const commands = added(before, await stateConnections());
    const inbox = anInbox();
    await state.subscribe('news', inbox.listener);
    const [subscriber] = added(new Set([...before, ...commands]), await stateConnections());
    await admin.client('KILL', 'ID', subscriber!);
    // Messages published while it was away are lost; once it is back they arrive.
    await eventually(async () => {
      await state.publish('news', 'are you back?');
      await new Promise((resolve) => setTimeout(resolve, 20));
      return inbox.messages.length > 0;
    });
    expect(new Set(inbox.messages)).toEqual(new Set(['are you back?']));
  });
});

describe('openSharedState', () => {
  it('opens the in-process state without a Redis URL', async () => {
    for (const options of [{}, { redisUrl: '' }]) {
      const state = await openSharedState(options);
      expect(state).toBeInstanceOf(MemorySharedState);
      await state.close();
    }
  });

  it('opens the Redis state with one, under the prefix given', async () => {
    const keyPrefix = newPrefix();
    const state = await openSharedState({ redisUrl: REDIS_URL, keyPrefix });
    try {
      expect(state).toBeInstanceOf(RedisSharedState);
      await state.set('key', 'value', LONG_TTL);
      expect(await admin.get(`${keyPrefix}key`)).toBe('value');
    } finally {
      await state.close();
    }
  });

  /** The error opening `redisUrl` fails with, checked to show nothing of `password`. */
  async function openingFailure(redisUrl: string, password: string): Promise<GatewayError> {
    const failure = await openSharedState({ redisUrl }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(GatewayError);
    const error = failure as GatewayError;
    expect(error.message).toMatch(/REDIS_URL/);
    expect(error.message).not.toContain(password);
    expect(inspect(error, { depth: Number.POSITIVE_INFINITY })).not.toContain(password);
    expect(JSON.stringify(error.detail)).not.toContain(password);
    return error;
  }

  it('fails at open with state_unavailable when nothing listens, naming the server but never the password', async () => {
    const port = await closedPort();
    const error = await openingFailure(
      `redis://portcullis:s3cret-pw@127.0.0.1:${port}/2`,
      's3cret-pw',
    );
    expect(error.code).toBe('state_unavailable');
    expect(error.status).toBe(503);
    expect(error.message).toContain(`redis://127.0.0.1:${port}/2`);
    expect(error.detail).toMatchObject({
      address: `redis://127.0.0.1:${port}/2`,
      code: 'ECONNREFUSED',
    });
  });

  it('fails at open with state_unavailable when Redis refuses the credentials, never showing them', async () => {
    const error = await openingFailure(
      `${REDIS_URL.replace('redis://', 'redis://nobody-here:p%40ss%20word@')}`,
      'p@ss word',
    );
    expect(error.code).toBe('state_unavailable');
    expect(error.message).not.toContain('p%40ss%20word');
    expect(error.message).toMatch(/WRONGPASS|NOAUTH|invalid/i);
  });

  it.each([
    ['not a URL', 'redis://user:s3cret-pw@:6379'],
    ['a URL with no host', 'redis:s3cret-pw@:::'],
    ['a URL of another kind', 'http://user:s3cret-pw@127.0.0.1:6379'],
  ])(
    'refuses %s with a TypeError naming REDIS_URL, and nothing of the URL',
    async (_, redisUrl) => {
      const failure = await openSharedState({ redisUrl }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(TypeError);
      expect((failure as TypeError).message).toMatch(/^REDIS_URL: /);
      expect(inspect(failure, { depth: Number.POSITIVE_INFINITY })).not.toContain('s3cret-pw');
      const direct = await RedisSharedState.open({ url: redisUrl }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(direct).toBeInstanceOf(TypeError);
      expect(inspect(direct, { depth: Number.POSITIVE_INFINITY })).not.toContain('s3cret-pw');
    },
  );
});
