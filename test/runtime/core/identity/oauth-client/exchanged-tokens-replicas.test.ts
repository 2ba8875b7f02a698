/**
 * Tokens exchanged towards an upstream (RFC 8693) are shared by the
 * replicas: two gateways behind one public address on one store and one
 * Redis, a remote connection that acts on members' behalf with subject
 * tokens the gateway signs (`--on-behalf-of portcullis`), oidc-provider as
 * the upstream's authorization server (its token exchange grant trusting
 * the gateway's keys), and members' agents made by ID-JAGs (oidc-provider as
 * the company's IdP, its key signing them) calling through the MCP SDK.
 *
 * The token one replica exchanged is the one the other carries, with no
 * request to the upstream's token endpoint; another agent of the same member
 * (another client) gets a token of its own; and the value in Redis holds
 * neither the token nor any secret, plain or in base64.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addMachineClient } from '../../../../../runtime/core/operator/machine-clients.ts';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.ts';
import { type CompanyIdp, startCompanyIdp } from '../../../../support/identity/company-idp.ts';
import {
  type ClientSecret,
  redeemIdJag,
  signIdJag,
  trustIdJags,
} from '../../../../support/identity/id-jag.ts';
import { TEST_REDIS_URL } from '../../../../support/redis.ts';
import {
  callOnBehalf,
  connectOnBehalfOf,
  gatewaySubjectClaims,
  JWT_TYPE,
  startExchangeUpstream,
} from '../../../../support/remote/exchange-upstream.ts';
import type { OAuthUpstream } from '../../../../support/remote/oauth-upstream.ts';

const ISSUER = 'https://gateway.example.test';
/** The shared state's prefix and the exchanged tokens' keys in it. */
const ENTRY_PREFIX = 'portcullis:upstream:exchanged:';
const UPSTREAM_SECRET = 'weather-client-secret-9d2b7e4a1c';
const environment = {
  PORTCULLIS_PUBLIC_URL: ISSUER,
  PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
  REDIS_URL: TEST_REDIS_URL,
};
const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-exchanged-replicas-'));
const replicas: TestGateway[] = [];
const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true });
let idp: CompanyIdp;
let upstream: OAuthUpstream;
let clients: ClientSecret[] = [];
/** Every token the test saw, and the secrets: none may be in Redis. */
const secrets: string[] = [UPSTREAM_SECRET];
/** The shared entries Redis had before this file's replicas started (other runs'). */
let earlier = new Set<string>();

beforeAll(async () => {
  await redis.connect();
  earlier = new Set(await redis.keys(`${ENTRY_PREFIX}*`));
  replicas.push(await startTestGateway({ dataDir, environment }));
  replicas.push(await startTestGateway({ dataDir, environment }));
  const [a] = replicas as [TestGateway, TestGateway];
  idp = await startCompanyIdp({
    tenant: 'acme',
    redirectUri: `${ISSUER}/sign-in/idp/callback`,
    people: {},
  });
  // The gateway's own subject tokens, verified by its published keys (either replica's: one store).
  upstream = await startExchangeUpstream(UPSTREAM_SECRET, async (token, type) => {
    if (type !== JWT_TYPE) throw new Error('not a subject token the gateway signed');
    const payload = await gatewaySubjectClaims(token, a.url, ISSUER, upstream.issuer);
    return {
      sub: `portcullis:${String(payload.sub)}:${String((payload.act as { sub?: string } | undefined)?.sub)}`,
    };
  });
  await connectOnBehalfOf(a, upstream, { clientSecret: UPSTREAM_SECRET, onBehalfOf: 'portcullis' });
  const ctx = a.running.gateway.operator('test');
  await trustIdJags(ctx, idp, ISSUER, { connection: 'wx' });
  clients = [];
  for (const name of ['claude-desktop', 'other-app']) {
    const made = await addMachineClient(ctx, { workspace: 'default', name });
    clients.push({ id: made.client.id, secret: made.secret! });
    secrets.push(made.secret!);
  }
});
afterAll(async () => {
  const ours = [...(await sharedEntries()).keys()];
  if (ours.length > 0) await redis.del(...ours);
  for (const replica of replicas) await replica.close();
  await upstream?.close();
  await idp?.close();
  redis.disconnect();
});

/** Our access token for `sub`'s agent for `client`, by an ID-JAG redeemed at `replica`. */
async function memberToken(
  replica: TestGateway,
  client: ClientSecret,
  sub: string,
): Promise<string> {
  const assertion = await signIdJag(
    idp,
    { sub, audience: ISSUER, clientId: client.id },
    { scope: 'tools:read', groups: ['eng'], preferred_username: sub },
  );
  const token = await redeemIdJag(replica.url, client, assertion);
  secrets.push(token);
  return token;
}

/** Calls the upstream's tool through `replica` with `token`; the bearer the upstream was sent. */
async function call(replica: TestGateway, token: string): Promise<string> {
  const bearer = await callOnBehalf(upstream, replica, token);
  secrets.push(bearer);
  return bearer;
}

/** The shared entries this file's replicas wrote. */
async function sharedEntries(): Promise<Map<string, string>> {
  const keys = await redis.keys(`${ENTRY_PREFIX}*`);
  const entries = new Map<string, string>();
  for (const key of keys) {
    if (earlier.has(key)) continue;
    const value = await redis.get(key);
    if (value !== null) entries.set(key, value);
  }
  return entries;
}

it('carries on the second replica the token the first exchanged, with no request to the token endpoint', async () => {
  const [a, b] = replicas as [TestGateway, TestGateway];
  const token = await memberToken(a, clients[0]!, 'dana');
  const exchanges = upstream.exchanges.length;
  const before = await sharedEntries();
  const first = await call(a, token);
  expect(upstream.exchanges.length).toBe(exchanges + 1);
  expect(upstream.exchanges.at(-1)?.outcome).toBe('ok');
  // The same member and agent on the other replica: the same upstream token, no exchange.
  const second = await call(b, token);
  expect(second).toBe(first);
  expect(upstream.exchanges.length).toBe(exchanges + 1);
  // One new entry, whose TTL ends before the token does (a minute of margin).
  const added = [...(await sharedEntries())].filter(([key]) => !before.has(key));
  expect(added).toHaveLength(1);
  const ttlMs = await redis.pttl(added[0]![0]);
  const expiresAtMs = Number(decodeJwt(first).exp ?? 0) * 1000;
  expect(ttlMs).toBeGreaterThan(0);
  expect(Date.now() + ttlMs).toBeLessThanOrEqual(expiresAtMs - 59_000);
});

it('gives another agent of the same member (another client) a token of its own, on the same replica and the other', async () => {
  const [a, b] = replicas as [TestGateway, TestGateway];
  const own = await call(a, await memberToken(a, clients[0]!, 'erin'));
  const exchanges = upstream.exchanges.length;
  const otherToken = await memberToken(a, clients[1]!, 'erin');
  // Same member, same connection, same replica, another agent: exchanged anew.
  const other = await call(a, otherToken);
  expect(other).not.toBe(own);
  expect(upstream.exchanges.length).toBe(exchanges + 1);
  expect(decodeJwt(other).sub).not.toBe(decodeJwt(own).sub);
  // On the other replica each agent gets its own, from Redis.
  expect(await call(b, otherToken)).toBe(other);
  expect(upstream.exchanges.length).toBe(exchanges + 1);
});

it('keeps in Redis neither a token nor a secret, plain or in base64', async () => {
  const entries = await sharedEntries();
  expect(entries.size).toBeGreaterThanOrEqual(3);
  const values = [...entries.values()].join('\n');
  for (const secret of secrets) {
    for (const form of [
      secret,
      Buffer.from(secret).toString('base64'),
      Buffer.from(secret).toString('base64url'),
    ]) {
      expect(values).not.toContain(form);
    }
    // Nor a token's parts (its payload is base64url already).
    for (const part of secret.split('.').filter((p) => p.length > 16))
      expect(values).not.toContain(part);
  }
});
