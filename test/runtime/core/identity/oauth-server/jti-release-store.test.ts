/**
 * Without Redis the jtis of client assertions are kept in the store
 * (`jti-ledger.ts`): a token request no token came of gives its client
 * assertion's jti back there too, and one that issued a token still uses it
 * up. On SQLite (one gateway) and on PostgreSQL (two replicas on one
 * schema, the refusal on one and the redemption and replay across them), a
 * `private_key_jwt` machine client whose keys a local JWKS serves.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMachineClient } from '../../../../../runtime/core/operator/machine-clients.ts';
import {
  type ClientKeys,
  JWT_BEARER_GRANT,
  startClientKeys,
  withAssertion,
} from '../../../../support/oauth/machine-client.ts';
import { type OAuthGateway, startOAuthGateway } from '../../../../support/oauth/oauth-gateway.ts';
import { type TestSchemas, testSchemas } from '../../../../support/postgres.ts';

const ISSUER = 'https://gateway.example.test';
const CLIENT_CREDENTIALS = { grant_type: 'client_credentials' };
const schemas: TestSchemas = testSchemas();
let keys: ClientKeys;

beforeAll(async () => {
  keys = await startClientKeys();
});
afterAll(async () => {
  await keys?.close();
  await schemas.dropAll();
});

describe.each([
  ['SQLite', false],
  ['PostgreSQL', true],
])('the store’s jti guard on %s', (_name, postgres) => {
  const replicas: OAuthGateway[] = [];
  let clientId: string;

  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-jti-release-store-'));
    const environment = {
      PORTCULLIS_PUBLIC_URL: ISSUER,
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
    };
    if (postgres) {
      const databaseUrl = schemas.urlFor(await schemas.create());
      replicas.push(await startOAuthGateway({ dataDir, databaseUrl, environment }));
      replicas.push(await startOAuthGateway({ dataDir, databaseUrl, environment }));
    } else {
      replicas.push(await startOAuthGateway({ dataDir, environment }));
    }
    const ctx = replicas[0]!.gateway.running.gateway.operator('test');
    clientId = (
      await addMachineClient(ctx, { workspace: 'default', name: 'deployer', jwksUri: keys.jwksUri })
    ).client.id;
  });
  afterAll(async () => {
    for (const replica of replicas) await replica.close();
  });

  async function lastRefusal(replica: OAuthGateway): Promise<string> {
    const [event] = await replica.gateway.running.gateway.store.audit.query({
      action: 'oauth.token',
      limit: 1,
    });
    return String(event?.subject);
  }

  it('takes the client assertion of refused grants once more, then refuses it once a token came of it', async () => {
    const first = replicas[0]!;
    const other = replicas.at(-1)!;
    const assertion = await keys.assertion(clientId, ISSUER);

    const badScope = await withAssertion(first.url, assertion, {
      ...CLIENT_CREDENTIALS,
      scope: 'tools:nonsense',
    });
    expect([badScope.status, badScope.body.error]).toEqual([400, 'invalid_scope']);
    // The same assertion: authenticated again (not a replay), its grant refused again.
    const badGrant = await withAssertion(other.url, assertion, {
      grant_type: JWT_BEARER_GRANT,
      assertion: 'not-an-id-jag',
    });
    expect([badGrant.status, badGrant.body.error]).toEqual([400, 'invalid_grant']);
    expect(await lastRefusal(other)).not.toBe('invalid_client:assertion_replayed');

    const issued = await withAssertion(other.url, assertion, CLIENT_CREDENTIALS);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expect(typeof issued.body.access_token).toBe('string');

    for (const replica of replicas) {
      const replayed = await withAssertion(replica.url, assertion, CLIENT_CREDENTIALS);
      expect([replayed.status, replayed.body.error]).toEqual([401, 'invalid_client']);
      expect(await lastRefusal(replica)).toBe('invalid_client:assertion_replayed');
    }
  });

  it('refuses the replay of an assertion a token came of at once', async () => {
    const assertion = await keys.assertion(clientId, `${ISSUER}/oauth/token`);
    const issued = await withAssertion(replicas[0]!.url, assertion, CLIENT_CREDENTIALS);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const replayed = await withAssertion(replicas.at(-1)!.url, assertion, {
      ...CLIENT_CREDENTIALS,
      scope: 'tools:nonsense',
    });
    // Refused as a replay before its grant is read.
    expect([replayed.status, replayed.body.error]).toEqual([401, 'invalid_client']);
    expect(await lastRefusal(replicas.at(-1)!)).toBe('invalid_client:assertion_replayed');
  });
});
