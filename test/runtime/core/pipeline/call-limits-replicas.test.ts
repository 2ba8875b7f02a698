/**
 * Rate limits across two replicas of the gateway sharing PostgreSQL and
 * Redis: a limit set on one replica holds on the other from its next call,
 * the calls of both take from one bucket (the n+1th is refused whichever
 * replica it reaches), and a limit cleared on one is lifted on the other.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  adminClient,
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../support/gateway.ts';
import { testSchemas } from '../../../support/postgres.ts';
import { type PrismServer, startPrism } from '../../../support/prism.ts';
import { TEST_REDIS_URL } from '../../../support/redis.ts';

const schemas = testSchemas();
let prism: PrismServer;
const replicas: TestGateway[] = [];

beforeAll(async () => {
  prism = await startPrism('unikraft', 'platform');
  const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-limit-replicas-'));
  const databaseUrl = schemas.urlFor(await schemas.create());
  const options = {
    dataDir,
    databaseUrl,
    upstreams: { unikraft: prism.url },
    environment: { REDIS_URL: TEST_REDIS_URL },
  };
  replicas.push(await startTestGateway(options));
  replicas.push(await startTestGateway(options));
});

afterAll(async () => {
  for (const replica of replicas) await replica.close();
  await prism?.stop();
  await schemas.dropAll();
});

it('holds one limit across replicas, set on one and cleared on the other', async () => {
  const [a, b] = replicas as [TestGateway, TestGateway];
  const token = a.adminToken!;
  const onA = adminClient(a.url, token);
  const onB = adminClient(b.url, token);
  await onA('POST', '/workspaces/default/connections', { provider: 'unikraft', credential: 't' });
  // A name of this run: buckets live in the shared Redis, whatever ran before.
  const name = `spread-${randomBytes(3).toString('hex')}`;
  const key = (await onA('POST', '/workspaces/default/agents', { name })).body.key as string;
  await onA('POST', '/workspaces/default/grants', { agent: name, connection: 'unikraft' });
  const clients = [await mcpClient(a.url, key), await mcpClient(b.url, key)];
  try {
    const outcome = async (replica: 0 | 1) => {
      const reply = await callTool(clients[replica]!, 'unikraft_get_user');
      return reply.isError ? reply.structuredContent?.error?.code : 'ok';
    };
    const set = await onB('PUT', '/workspaces/default/limits', {
      agent: name,
      perMinute: 1,
      burst: 3,
    });
    expect(set.status).toBe(200);
    const seen = [];
    for (const replica of [0, 1, 0, 1, 0] as const) seen.push(await outcome(replica));
    expect(seen).toEqual(['ok', 'ok', 'ok', 'rate_limited', 'rate_limited']);
    const refusals = await onB('GET', `/audit?workspace=default&agent=${name}&reason=rate_limited`);
    expect(refusals.body).toHaveLength(2);
    await onA('POST', '/workspaces/default/limits/clear', { agent: name });
    expect(await outcome(1)).toBe('ok');
  } finally {
    for (const client of clients) await client.close();
  }
});
