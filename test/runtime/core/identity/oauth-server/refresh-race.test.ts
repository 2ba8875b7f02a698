/**
 * Two refreshes of one token at once, on two replicas sharing PostgreSQL and
 * Redis: one rotates it, the other is a plain `invalid_grant`, and the
 * winner's tokens go on working (the client is not signed out). The same
 * token presented after the grace window is a replay: its whole family is
 * revoked. That later presentation comes from a third replica whose clock
 * runs past the window, so the test waits for nothing.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Gateway, openGateway } from '../../../../../runtime/compose/open-gateway.ts';
import { configFromEnvironment } from '../../../../../runtime/config/config.ts';
import { REFRESH_GRACE_MS } from '../../../../../runtime/core/identity/oauth-server/refresh-grace.ts';
import { GENERATED } from '../../../../support/gateway.ts';
import { type OAuthGateway, startOAuthGateway } from '../../../../support/oauth/oauth-gateway.ts';
import {
  codeFor,
  exchange,
  mcpStatus,
  type RegisteredTestClient,
  registerClient,
  tokenRequest,
} from '../../../../support/oauth/raw-flow.ts';
import { type TestSchemas, testSchemas } from '../../../../support/postgres.ts';
import { TEST_REDIS_URL } from '../../../../support/redis.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-refresh-race-'));
const schemas: TestSchemas = testSchemas();
const replicas: OAuthGateway[] = [];
let environment: Record<string, string>;
let later: Gateway | undefined;
let client: RegisteredTestClient;

beforeAll(async () => {
  const databaseUrl = schemas.urlFor(await schemas.create());
  environment = {
    PORTCULLIS_PUBLIC_URL: 'https://gateway.example.test',
    REDIS_URL: TEST_REDIS_URL,
  };
  replicas.push(await startOAuthGateway({ dataDir, databaseUrl, environment }));
  replicas.push(await startOAuthGateway({ dataDir, databaseUrl, environment }));
  later = await openGateway({
    config: configFromEnvironment({
      ...environment,
      PORTCULLIS_DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
    }),
    catalogs: GENERATED,
    now: () => new Date(Date.now() + REFRESH_GRACE_MS + 60_000),
  });
  client = await registerClient(replicas[0]!.url);
});
afterAll(async () => {
  await later?.close();
  for (const replica of replicas) await replica.close();
  await schemas.dropAll();
});

const refresh = (url: string, token: string) =>
  tokenRequest(url, {
    grant_type: 'refresh_token',
    client_id: client.clientId,
    refresh_token: token,
  });

it('gives two refreshes of one token at once on two replicas one winner, and keeps the winner signed in', async () => {
  const [a, b] = replicas as [OAuthGateway, OAuthGateway];
  const first = await exchange(a.url, client, await codeFor(a.url, client));
  let token = String(first.body.refresh_token);
  for (let round = 0; round < 3; round++) {
    const replies = await Promise.all([refresh(a.url, token), refresh(b.url, token)]);
    const won = replies.filter((reply) => reply.status === 200);
    const lost = replies.filter((reply) => reply.status !== 200);
    expect(won).toHaveLength(1);
    expect(lost.map((reply) => [reply.status, reply.body.error])).toEqual([[400, 'invalid_grant']]);
    expect(await mcpStatus(a.url, String(won[0]!.body.access_token))).toBe(200);
    token = String(won[0]!.body.refresh_token);
  }
  expect((await refresh(b.url, token)).status).toBe(200);
});

it('revokes the family of a token presented again after the grace window', async () => {
  const [a, b] = replicas as [OAuthGateway, OAuthGateway];
  const first = await exchange(a.url, client, await codeFor(a.url, client));
  const token = String(first.body.refresh_token);
  const rotated = await refresh(b.url, token);
  expect(rotated.status).toBe(200);
  const replayed = await later!.oauth.token(
    { grant_type: 'refresh_token', client_id: client.clientId, refresh_token: token },
    undefined,
  );
  expect(replayed.status).toBe(400);
  expect(JSON.parse(String(replayed.body))).toMatchObject({ error: 'invalid_grant' });
  expect((await refresh(a.url, String(rotated.body.refresh_token))).body.error).toBe(
    'invalid_grant',
  );
  expect(await mcpStatus(a.url, String(rotated.body.access_token))).toBe(401);
});
