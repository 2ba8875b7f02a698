/**
 * `GET /readyz` on a gateway whose PostgreSQL and Redis are the machine's
 * own, each reached through a TCP proxy the test cuts and restores (the
 * services themselves, shared with other tests, keep running): ready while
 * both answer; `503 not_ready` naming the store while PostgreSQL is cut, and
 * Redis while Redis is; ready again once each is back, without a restart.
 * A check that hangs is cut short by its deadline, and probes that arrive
 * together share one check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Readiness } from '../../../../runtime/core/pipeline/readiness.ts';
import type { SharedState } from '../../../../runtime/core/ports/shared-state/shared-state.ts';
import type { Store } from '../../../../runtime/core/ports/store.ts';
import { startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { testSchemas } from '../../../support/postgres.ts';
import { TEST_REDIS_URL } from '../../../support/redis.ts';
import { startTcpProxy, type TcpProxy, targetOf } from '../../../support/tcp-proxy.ts';

const schemas = testSchemas();
let postgres: TcpProxy;
let redis: TcpProxy;
let gateway: TestGateway;

beforeAll(async () => {
  const databaseUrl = schemas.urlFor(await schemas.create());
  postgres = await startTcpProxy(targetOf(databaseUrl));
  redis = await startTcpProxy(targetOf(TEST_REDIS_URL));
  gateway = await startTestGateway({
    databaseUrl: postgres.through(databaseUrl),
    environment: { REDIS_URL: redis.through(TEST_REDIS_URL), PORTCULLIS_LOG_LEVEL: 'silent' },
  });
});

afterAll(async () => {
  await gateway?.close();
  await postgres?.close();
  await redis?.close();
  await schemas.dropAll();
});

async function readyz(): Promise<{ status: number; body: Record<string, unknown> }> {
  const reply = await fetch(`${gateway.url}/readyz`);
  return { status: reply.status, body: (await reply.json()) as Record<string, unknown> };
}

/** Asks until it answers `status` (a recovering client reconnects on its own schedule), at most 20 s. */
async function readyzUntil(status: number): Promise<{ status: number; body: unknown }> {
  let last = await readyz();
  for (let tries = 0; last.status !== status && tries < 100; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    last = await readyz();
  }
  return last;
}

describe('/readyz', () => {
  it('answers 200 naming what it checked while PostgreSQL and Redis answer', async () => {
    const reply = await readyz();
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: 'ready', store: 'ok', redis: 'ok' });
    expect(reply.body.catalogs).toContain('unikraft');
  });

  it('answers 503 not_ready naming the store while PostgreSQL is cut, and 200 once it is back', async () => {
    postgres.cut();
    try {
      const down = await readyz();
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({
        error: { code: 'not_ready', detail: { notReady: ['store'] } },
      });
    } finally {
      postgres.restore();
    }
    expect((await readyzUntil(200)).status).toBe(200);
  });

  it('answers 503 not_ready naming Redis while Redis is cut, and 200 once it is back', async () => {
    redis.cut();
    try {
      const down = await readyz();
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({
        error: { code: 'not_ready', detail: { notReady: ['redis'] } },
      });
    } finally {
      redis.restore();
    }
    expect((await readyzUntil(200)).status).toBe(200);
  });
});

describe('Readiness', () => {
  const hangs = () => new Promise<never>(() => {});
  const fails = () => Promise.reject(new Error('connection refused'));
  const answers = async () => 1;

  it.each<
    [string, { store: () => Promise<unknown>; redis?: () => Promise<unknown>; want: unknown }]
  >([
    ['both answer', { store: answers, redis: answers, want: { ready: true } }],
    ['no Redis configured', { store: answers, want: { ready: true } }],
    ['the store hangs', { store: hangs, redis: answers, want: ['store'] }],
    ['Redis fails', { store: answers, redis: fails, want: ['redis'] }],
    ['both fail', { store: fails, redis: hangs, want: ['store', 'redis'] }],
  ])('%s', async (_name, { store, redis, want }) => {
    const readiness = new Readiness({
      store: { revision: store } as unknown as Store,
      redis: redis && ({ get: redis } as unknown as SharedState),
      catalogs: ['unikraft'],
      timeoutMs: 50,
    });
    const result = await readiness.check();
    if (result.ready) expect({ ready: true }).toEqual(want);
    else {
      expect(result.error.code).toBe('not_ready');
      expect(result.error.detail).toEqual({ notReady: want });
    }
  });

  it('lets probes that arrive together share one check', async () => {
    let asked = 0;
    const readiness = new Readiness({
      store: {
        revision: async () => {
          asked++;
          return 1;
        },
      } as unknown as Store,
      catalogs: [],
    });
    await Promise.all([readiness.check(), readiness.check(), readiness.check()]);
    expect(asked).toBe(1);
    await readiness.check();
    expect(asked).toBe(2);
  });
});
