/**
 * Two gateway processes behind nginx whose PostgreSQL and Redis (the
 * machine's own, shared with other tests, never stopped) are reached through
 * TCP proxies the test cuts and restores, as an outage or a restart looks to
 * the replicas: while PostgreSQL is cut every replica's `/readyz` answers 503
 * `not_ready` naming the store, and 200 once it is back; while Redis is cut
 * a new session is refused with `state_unavailable` (a call in a session a
 * replica already knows may go on, or fails with that code, never another),
 * and once it is back new sessions and the old one go on, on both replicas,
 * without a restart.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REASONS } from '../../runtime/core/base/errors.ts';
import { callTool, mcpClient } from '../support/gateway.ts';
import { postInitialize } from '../support/oauth/raw-flow.ts';
import { testSchemas } from '../support/postgres.ts';
import { TEST_REDIS_URL } from '../support/redis.ts';
import { startUpstream, type Upstream } from '../support/remote/upstream-servers.ts';
import { type ReplicaSet, startReplicaSet } from '../support/replicas.ts';
import { startTcpProxy, type TcpProxy, targetOf } from '../support/tcp-proxy.ts';

const TOOL = 'weather__get_weather';
const schemas = testSchemas();
let postgres: TcpProxy;
let redis: TcpProxy;
let upstream: Upstream;
let set: ReplicaSet;
/** The set's `portcullis` command (known before the set has finished starting). */
let command: ReplicaSet['cli'];
let direct: Record<string, string>;
let client: Client;
let key: string;

/** `portcullis <args> --json` on the store and Redis themselves (not through the proxies). */
async function cli<T = Record<string, unknown>>(...args: string[]): Promise<T> {
  const run = await command([...args, '--json'], direct);
  if (run.code !== 0) throw new Error(`portcullis ${args.join(' ')}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

beforeAll(async () => {
  const databaseUrl = schemas.urlFor(await schemas.create());
  direct = { DATABASE_URL: databaseUrl, REDIS_URL: TEST_REDIS_URL };
  postgres = await startTcpProxy(targetOf(databaseUrl));
  redis = await startTcpProxy(targetOf(TEST_REDIS_URL));
  upstream = await startUpstream('modern');
  set = await startReplicaSet({
    count: 2,
    databaseUrl: postgres.through(databaseUrl),
    redisUrl: redis.through(TEST_REDIS_URL),
    prepare: async (run) => {
      command = run;
      await cli('connect-url', upstream.url, '--name', 'weather');
      await cli('review', 'weather', '--all');
      ({ key } = await cli<{ key: string }>('agent', 'create', 'outlasting'));
      await cli('grant', 'outlasting', 'weather');
    },
  });
  client = await mcpClient(set.url, key);
  // Generous: the processes start on a machine that may be busy.
}, 300_000);

afterAll(async () => {
  await client?.close();
  await set?.close();
  await upstream?.close();
  await postgres?.close();
  await redis?.close();
  await schemas.dropAll();
});

async function readyz(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const reply = await fetch(`${url}/readyz`);
  return { status: reply.status, body: (await reply.json()) as Record<string, unknown> };
}

/** Each replica's `/readyz` status, asked until each is 200 (a client reconnects on its own schedule), at most 30 s. */
async function readyEverywhere(): Promise<number[]> {
  let statuses: number[] = [];
  for (let tries = 0; tries < 150; tries++) {
    statuses = await Promise.all(set.replicas.map(async (r) => (await readyz(r.url)).status));
    if (statuses.every((status) => status === 200)) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return statuses;
}

/** A call's outcome: `ok`, or the reason code it failed with (from a tool result or the HTTP answer). */
async function outcome(city: string): Promise<string> {
  try {
    const reply = await callTool(client, TOOL, { city });
    if (!reply.isError) return reply.content[0]?.text === `sunny in ${city}` ? 'ok' : 'wrong';
    return reply.structuredContent?.error?.code ?? 'error';
  } catch (error) {
    return /state_unavailable|shared state is unavailable/.exec(String(error))
      ? 'state_unavailable'
      : String(error);
  }
}

describe('while PostgreSQL is cut', { timeout: 180_000 }, () => {
  it('every replica is not ready, naming the store; ready again once it is back', async () => {
    postgres.cut();
    try {
      for (const replica of set.replicas) {
        const reply = await readyz(replica.url);
        expect(reply.status).toBe(503);
        expect(reply.body).toMatchObject({
          error: { code: 'not_ready', detail: { notReady: ['store'] } },
        });
      }
    } finally {
      postgres.restore();
    }
    expect(await readyEverywhere()).toEqual([200, 200]);
    expect(await outcome('after-postgres')).toBe('ok');
  });
});

describe('while Redis is cut', { timeout: 180_000 }, () => {
  it('a new session is refused with state_unavailable; once it is back, new and old sessions go on, on both replicas', async () => {
    expect(await outcome('before')).toBe('ok');
    redis.cut();
    let opened: Array<{ status: number; error: unknown }>;
    let during: string[];
    try {
      // A session is made in the shared state: without it, 503 with the code's JSON-RPC error.
      opened = await Promise.all(set.replicas.map(() => initialize()));
      // A session this replica has seen may go on without it; a call that needs it fails with the code.
      during = await Promise.all(Array.from({ length: 4 }, (_, call) => outcome(`during-${call}`)));
      for (const replica of set.replicas)
        expect((await readyz(replica.url)).body).toMatchObject({
          error: { code: 'not_ready', detail: { notReady: ['redis'] } },
        });
    } finally {
      redis.restore();
    }
    const unavailable = REASONS.state_unavailable;
    expect(opened).toEqual(
      set.replicas.map(() => ({
        status: 503,
        error: { code: unavailable.rpc, message: unavailable.message },
      })),
    );
    expect(during.filter((code) => code !== 'ok' && code !== 'state_unavailable')).toEqual([]);
    expect(await readyEverywhere()).toEqual([200, 200]);
    // Round-robin: these reach both replicas, in the session opened before the cut and in new ones.
    expect(await Promise.all(set.replicas.map(() => initialize()))).toEqual(
      set.replicas.map(() => ({ status: 200, error: undefined })),
    );
    const after = await Promise.all(
      Array.from({ length: 4 }, (_, call) => outcome(`after-${call}`)),
    );
    expect(after).toEqual(Array(4).fill('ok'));
  });
});

/** A 2025-11-25 `initialize` through nginx with the agent's key: the status, and the JSON-RPC error if any. */
async function initialize(): Promise<{ status: number; error: unknown }> {
  const reply = await postInitialize(set.url, key);
  const text = await reply.text();
  const json = reply.headers.get('content-type')?.includes('json') ? JSON.parse(text) : {};
  const error = json.error as { code: number; message: string } | undefined;
  return {
    status: reply.status,
    error: error === undefined ? undefined : { code: error.code, message: error.message },
  };
}
