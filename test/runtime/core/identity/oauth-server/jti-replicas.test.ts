/**
 * A JWT the token endpoint took once is refused on every replica: two
 * gateways on one PostgreSQL schema, with Redis (the jtis in the shared
 * state) and without it (the jtis in the store), take a `private_key_jwt`
 * client assertion and an ID-JAG on one replica and refuse the same one on
 * the other.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapGroup } from '../../../../../runtime/core/operator/identity-groups.ts';
import { addIdentityProvider } from '../../../../../runtime/core/operator/identity-providers.ts';
import { addMachineClient } from '../../../../../runtime/core/operator/machine-clients.ts';
import { type CompanyIdp, startCompanyIdp } from '../../../../support/identity/company-idp.ts';
import {
  type ClientKeys,
  JWT_BEARER_GRANT,
  startClientKeys,
  withAssertion,
} from '../../../../support/oauth/machine-client.ts';
import { type OAuthGateway, startOAuthGateway } from '../../../../support/oauth/oauth-gateway.ts';
import { type TestSchemas, testSchemas } from '../../../../support/postgres.ts';
import { TEST_REDIS_URL } from '../../../../support/redis.ts';

const ISSUER = 'https://gateway.example.test';
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
    const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-jti-replicas-'));
    const databaseUrl = schemas.urlFor(await schemas.create());
    const environment = {
      PORTCULLIS_PUBLIC_URL: ISSUER,
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
      ...(redisUrl === '' ? {} : { REDIS_URL: redisUrl }),
    };
    replicas.push(await startOAuthGateway({ dataDir, databaseUrl, environment }));
    replicas.push(await startOAuthGateway({ dataDir, databaseUrl, environment }));
    const ctx = replicas[0]!.gateway.running.gateway.operator('test');
    const made = await addMachineClient(ctx, {
      workspace: 'default',
      name: 'deployer',
      jwksUri: keys.jwksUri,
    });
    clientId = made.client.id;
    await addIdentityProvider(
      ctx,
      {
        workspace: 'default',
        name: 'acme',
        issuer: idp.issuer,
        clientId: idp.clientId,
        clientSecretEnv: 'PORTCULLIS_IDP_ACME_SECRET',
        groupsClaim: 'groups',
        idJag: true,
      },
      ISSUER,
    );
    await mapGroup(ctx, {
      workspace: 'default',
      provider: 'acme',
      group: 'eng',
      connection: 'unikraft',
      scope: 'reads',
    });
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
    const now = Math.floor(Date.now() / 1000);
    const idJag = await idp.signWithIdpKey(
      {
        iss: idp.issuer,
        sub: 'dana',
        aud: ISSUER,
        client_id: clientId,
        jti: randomUUID(),
        iat: now,
        exp: now + 300,
        resource: `${ISSUER}/mcp`,
        scope: 'tools:read',
        groups: ['eng'],
      },
      'oauth-id-jag+jwt',
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
