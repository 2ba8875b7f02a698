/**
 * `portcullis idp sync <member>` and `portcullis member remove` leave no
 * replica an upstream token exchanged for the member before: two gateways
 * on one store and one Redis, oidc-provider as the company's IdP (a groups
 * claim, the member signed in through the console, refresh token kept) and
 * as the upstream's authorization server (a token exchange grant that takes
 * the IdP's ID tokens and says which groups each listed), an SDK v2 server
 * behind it, the member's agent made by an ID-JAG at each replica, calls
 * through the MCP SDK client.
 *
 * Before the sync both replicas carry the one token exchanged for the ID
 * token of the sign-in (groups eng and ops); the command, run as an
 * operator runs it (its own process, the store and Redis), reads the
 * member's groups again (ops is gone), and the next call on either replica
 * exchanges the fresh ID token (eng alone) for a new upstream token, which
 * the other replica then carries. After the member's removal nothing is
 * exchanged for them.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addMachineClient } from '../../../../../runtime/core/operator/machine-clients.ts';
import { mcpClient, startTestGateway, type TestGateway } from '../../../../support/gateway.ts';
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
  ID_TOKEN_TYPE,
  startExchangeUpstream,
} from '../../../../support/remote/exchange-upstream.ts';
import type { OAuthUpstream } from '../../../../support/remote/oauth-upstream.ts';
import { authorizeAt, SignInBrowser } from '../../../../support/remote/sign-in-browser.ts';
import { runPortcullisHere } from '../../../../support/run-cli.ts';

const IDP_SECRET = 'company-secret-acme-sync-5e2c8a';
const UPSTREAM_SECRET = 'weather-client-secret-sync-7b1d3f';
const environment = {
  PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
  PORTCULLIS_IDP_ACME_SECRET: IDP_SECRET,
  REDIS_URL: TEST_REDIS_URL,
};
const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-exchanged-sync-'));
const cli = { ...environment, PORTCULLIS_DATA_DIR: dataDir };
let a: TestGateway;
let b: TestGateway;
let idp: CompanyIdp;
let upstream: OAuthUpstream;
let client: ClientSecret;

beforeAll(async () => {
  a = await startTestGateway({ dataDir, environment });
  b = await startTestGateway({ dataDir, environment });
  idp = await startCompanyIdp({
    tenant: 'acme',
    redirectUri: `${a.url}/sign-in/idp/callback`,
    clientSecret: IDP_SECRET,
    people: { hana: { preferred_username: 'hana', groups: ['eng', 'ops'] } },
  });
  const idpKeys = createRemoteJWKSet(new URL(`${idp.issuer}/jwks`));
  // The IdP's ID tokens for the gateway's client there, and nothing else.
  upstream = await startExchangeUpstream(UPSTREAM_SECRET, async (token, type) => {
    if (type !== ID_TOKEN_TYPE) throw new Error('not an ID token');
    const { payload } = await jwtVerify(token, idpKeys, {
      issuer: idp.issuer,
      audience: idp.clientId,
    });
    return { sub: String(payload.sub) };
  });
  await connectOnBehalfOf(a, upstream, { clientSecret: UPSTREAM_SECRET, onBehalfOf: 'id_token' });
  const ctx = a.running.gateway.operator('test');
  await trustIdJags(ctx, idp, a.url, {
    connection: 'wx',
    provider: { scopes: 'openid profile groups', role: 'viewer' },
  });
  const made = await addMachineClient(ctx, { workspace: 'default', name: 'claude-desktop' });
  client = { id: made.client.id, secret: made.secret! };
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await upstream?.close();
  await idp?.close();
});

/** hana signs in to the console through the IdP at replica A: her refresh and subject tokens are kept. */
async function signInThroughIdp(): Promise<void> {
  const browser = new SignInBrowser();
  const start = await browser.request(`${a.url}/sign-in/idp/acme`);
  const callback = await authorizeAt(browser, start.headers.get('location')!, 'hana');
  expect((await browser.request(callback)).status).toBe(303);
}

/** Our access token for hana's agent for the client, by an ID-JAG (no groups claim) redeemed at `replica`. */
async function memberToken(replica: TestGateway): Promise<string> {
  const assertion = await signIdJag(
    idp,
    { sub: 'hana', audience: replica.url, clientId: client.id },
    { scope: 'tools:read' },
  );
  return redeemIdJag(replica.url, client, assertion);
}

/** The upstream tool called through `replica`; the bearer the upstream was sent. */
function call(replica: TestGateway, token: string): Promise<string> {
  return callOnBehalf(upstream, replica, token);
}

/** The groups the ID token of the last exchange listed. */
function groupsOfLastExchange(): unknown {
  const last = upstream.exchanges.at(-1);
  expect(last?.outcome).toBe('ok');
  return decodeJwt(last!.subjectToken).groups;
}

it('exchanges the fresh ID token on either replica after idp sync, never carrying the one from before', async () => {
  await signInThroughIdp();
  const [atA, atB] = [await memberToken(a), await memberToken(b)];
  // Both tokens act as the one agent of hana for the client.
  expect(decodeJwt(atA).agent).toBe(decodeJwt(atB).agent);
  const exchanges = upstream.exchanges.length;
  const before = await call(a, atA);
  expect(upstream.exchanges.length).toBe(exchanges + 1);
  expect(groupsOfLastExchange()).toEqual(['eng', 'ops']);
  expect(await call(b, atB)).toBe(before);
  expect(upstream.exchanges.length).toBe(exchanges + 1);

  idp.people.hana!.groups = ['eng'];
  const synced = await runPortcullisHere(['idp', 'sync', 'hana'], cli);
  expect(synced.code, synced.stderr).toBe(0);
  expect(synced.stdout).toContain('synced');

  // Replica B had it from Redis, replica A in its own memory too: neither carries it again.
  const after = await call(b, atB);
  expect(after).not.toBe(before);
  expect(upstream.exchanges.length).toBe(exchanges + 2);
  expect(groupsOfLastExchange()).toEqual(['eng']);
  expect(await call(a, atA)).toBe(after);
  expect(upstream.exchanges.length).toBe(exchanges + 2);
});

it('exchanges nothing more for a member once removed', async () => {
  const token = await memberToken(a);
  await call(a, token);
  const exchanges = upstream.exchanges.length;
  const received = upstream.received.length;
  const removed = await runPortcullisHere(['member', 'remove', 'hana'], cli);
  expect(removed.code, removed.stderr).toBe(0);
  // Her agent went with her: its token opens no session on either replica.
  for (const replica of [a, b]) await expect(mcpClient(replica.url, token)).rejects.toThrow();
  expect(upstream.exchanges.length).toBe(exchanges);
  expect(upstream.received.length).toBe(received);
});
