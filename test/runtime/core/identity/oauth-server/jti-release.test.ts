/**
 * A token request no token came of does not use up its JWTs' `jti`s, and a
 * JWT that did is still refused on every replica: two gateways on one
 * PostgreSQL schema and one Redis (the jtis in the shared state), a
 * `private_key_jwt` machine client, oidc-provider as the company's IdP (its
 * published key signs the ID-JAGs).
 *
 * The store's commit is made to fail for real: a deferred constraint
 * trigger on the token families refuses the commit of a redemption while
 * the test says so. The ID-JAG and the client assertion of that request are
 * then redeemed on the other replica; once they are, both are refused again
 * on either. A redemption refused after its checks leaves the client
 * assertion usable, and of one ID-JAG presented at both replicas at once
 * exactly one is redeemed.
 */
import type { JWTPayload } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
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
let schema: string;
let keys: ClientKeys;
let idp: CompanyIdp;
let a: OAuthGateway;
let b: OAuthGateway;
let clientId: string;

beforeAll(async () => {
  keys = await startClientKeys();
  idp = await startCompanyIdp({
    tenant: 'acme',
    redirectUri: `${ISSUER}/sign-in/idp/callback`,
    people: {},
  });
  schema = await schemas.create();
  [a, b] = await startOAuthReplicas({
    databaseUrl: schemas.urlFor(schema),
    redisUrl: TEST_REDIS_URL,
    prefix: 'portcullis-jti-release-',
  });
  const ctx = a.gateway.running.gateway.operator('test');
  clientId = (
    await addMachineClient(ctx, { workspace: 'default', name: 'deployer', jwksUri: keys.jwksUri })
  ).client.id;
  await trustIdJags(ctx, idp, ISSUER, { connection: 'unikraft' });
  // While `refused_commits` has a row, every commit that started a token family fails.
  await schemas.query(`create table ${schema}.refused_commits (why text)`);
  await schemas.query(`create function ${schema}.refuse_commit() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from ${schema}.refused_commits) then
        raise exception 'the test refuses this commit';
      end if;
      return null;
    end $$`);
  await schemas.query(`create constraint trigger refuse_commit after insert on ${schema}.oauth_token_families
    deferrable initially deferred for each row execute function ${schema}.refuse_commit()`);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await keys?.close();
  await idp?.close();
  await schemas.dropAll();
});

function idJag(sub: string, claims: JWTPayload = {}): Promise<string> {
  return signIdJag(
    idp,
    { sub, audience: ISSUER, clientId },
    { scope: 'tools:read', groups: ['eng'], ...claims },
  );
}

function redeem(replica: OAuthGateway, assertion: string, grant: string) {
  return withAssertion(replica.url, assertion, { grant_type: JWT_BEARER_GRANT, assertion: grant });
}

async function lastRefusal(replica: OAuthGateway): Promise<string> {
  const [event] = await replica.gateway.running.gateway.store.audit.query({
    action: 'oauth.token',
    limit: 1,
  });
  return String(event?.subject);
}

it('uses up neither jti when the commit fails, and refuses both on every replica once redeemed', async () => {
  const grant = await idJag('dana');
  const assertion = await keys.assertion(clientId, ISSUER);
  await schemas.query(`insert into ${schema}.refused_commits values ('now')`);
  try {
    const failed = await redeem(a, assertion, grant);
    expect(failed.status).toBeGreaterThanOrEqual(500);
  } finally {
    await schemas.query(`delete from ${schema}.refused_commits`);
  }
  const store = a.gateway.running.gateway.store;
  expect(await store.identity.identity(idp.issuer, 'dana')).toBeUndefined();

  // The same two JWTs, on the other replica: redeemed.
  const redeemed = await redeem(b, assertion, grant);
  expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200);

  // Now each is used, on both replicas.
  const replayed = await redeem(a, await keys.assertion(clientId, ISSUER), grant);
  expect([replayed.status, replayed.body.error]).toEqual([400, 'invalid_grant']);
  expect(await lastRefusal(a)).toBe('invalid_grant:id_jag_replayed');
  const reused = await withAssertion(a.url, assertion, { grant_type: 'client_credentials' });
  expect([reused.status, reused.body.error]).toEqual([401, 'invalid_client']);
  expect(await lastRefusal(a)).toBe('invalid_client:assertion_replayed');
});

it('leaves the client assertion of a refused redemption usable, once', async () => {
  const assertion = await keys.assertion(clientId, ISSUER);
  const refused = await redeem(a, assertion, await idJag('erin', { scope: 'tools:destructive' }));
  expect([refused.status, refused.body.error]).toEqual([400, 'invalid_grant']);
  expect(await lastRefusal(a)).toBe('invalid_grant:id_jag_scope');
  const again = await redeem(b, assertion, await idJag('erin'));
  expect(again.status, JSON.stringify(again.body)).toBe(200);
  const third = await redeem(a, assertion, await idJag('erin'));
  expect([third.status, third.body.error]).toEqual([401, 'invalid_client']);
});

it('redeems one ID-JAG presented at both replicas at once exactly once', async () => {
  const grant = await idJag('frank');
  const replies = await Promise.all(
    [a, b].map(async (replica) => redeem(replica, await keys.assertion(clientId, ISSUER), grant)),
  );
  expect(replies.map((r) => r.status).sort()).toEqual([200, 400]);
  expect(replies.find((r) => r.status === 400)?.body.error).toBe('invalid_grant');
});
