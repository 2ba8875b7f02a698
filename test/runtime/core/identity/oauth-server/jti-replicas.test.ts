/**
 * A JWT the token endpoint took once is refused on every replica: two
 * gateways on one PostgreSQL schema, with Redis (the jtis in the shared
 * state) and without it (the jtis in the store), take a `private_key_jwt`
 * client assertion and an ID-JAG on one replica and refuse the same one on
 * the other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMachineClient } from '../../../../../runtime/core/operator/machine-clients.ts';
import { type CompanyIdp, startCompanyIdp } from '../../../../support/identity/company-idp.ts';
import { signIdJag, trustIdJags } from '../../../../support/identity/id-jag.ts';
import {
  type ClientKeys,
  JWT_BEARER_GRANT,
  startClientKeys,
  withAssertion,
} from '../../../../support/oauth/machine-client.ts';
import type { OAuthGateway } from '../../../../support/oauth/oauth-gateway.ts';
import { ISSUER, startOAuthReplicas } from '../../../../support/oauth/oauth-replicas.ts';
import { type TestSchemas, testSchemas } from '../../../../support/postgres.ts';
import { TEST_REDIS_URL } from '../../../../support/redis.ts';

const schemas: TestSchemas = testSchemas();
let keys: ClientKeys;
let idp: CompanyIdp;

beforeAll(async () => {
  keys = await startClientKeys();
  idp = await startCompanyIdp({
    tenant: 'acme',
    redirectUri: `${ISSUER}/sign-in/idp/callback`,
    people: {},
  });
});
afterAll(async () => {
  await keys?.close();
  await idp?.close();
  await schemas.dropAll();
});

describe.each([
  ['with Redis', TEST_REDIS_URL],
  ['without Redis (the store keeps the jtis)', ''],
])('two replicas on PostgreSQL %s', (_name, redisUrl) => {
  const replicas: OAuthGateway[] = [];
  let clientId: string;

  beforeAll(async () => {
    const databaseUrl = schemas.urlFor(await schemas.create());
    replicas.push(
      ...(await startOAuthReplicas({ databaseUrl, redisUrl, prefix: 'portcullis-jti-replicas-' })),
    );
    const ctx = replicas[0]!.gateway.running.gateway.operator('test');
    const made = await addMachineClient(ctx, {
      workspace: 'default',
      name: 'deployer',
      jwksUri: keys.jwksUri,
    });
    clientId = made.client.id;
    await trustIdJags(ctx, idp, ISSUER, { connection: 'unikraft' });
  });
  afterAll(async () => {
    for (const replica of replicas) await replica.close();
  });

  it('refuses a client assertion on one replica that the other took', async () => {
    const [a, b] = replicas as [OAuthGateway, OAuthGateway];
    const assertion = await keys.assertion(clientId, `${ISSUER}/oauth/token`);
    const form = { grant_type: 'client_credentials' };
    expect((await withAssertion(a.url, assertion, form)).status).toBe(200);
    const again = await withAssertion(b.url, assertion, form);
    expect([again.status, again.body.error]).toEqual([401, 'invalid_client']);
  });

  it('refuses an ID-JAG on one replica that the other redeemed', async () => {
    const [a, b] = replicas as [OAuthGateway, OAuthGateway];
    const idJag = await signIdJag(
      idp,
      { sub: 'dana', audience: ISSUER, clientId },
      { scope: 'tools:read', groups: ['eng'] },
    );
    const redeem = async (url: string) =>
      withAssertion(url, await keys.assertion(clientId, ISSUER), {
        grant_type: JWT_BEARER_GRANT,
        assertion: idJag,
      });
    const first = await redeem(b.url);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const again = await redeem(a.url);
    expect([again.status, again.body.error]).toEqual([400, 'invalid_grant']);
    const [refusal] = await a.gateway.running.gateway.store.audit.query({
      action: 'oauth.token',
      limit: 1,
    });
    expect(refusal?.subject).toBe('invalid_grant:id_jag_replayed');
  });
});
