/**
 * An ID-JAG refused once its signature and claims have checked writes
 * nothing: oidc-provider as the company's IdP (its key signs the ID-JAGs), a
 * gateway on a PostgreSQL schema of its own, with the jtis in the store and
 * in Redis. Each refusal (the member's grants reach none of its scopes, a
 * scope it does not allow asked, the member's agent for the client revoked,
 * another resource) leaves every table as it was, but for the refusal's
 * audit event: no member, identity, group grant or role, consent, agent,
 * token family or jti; and an ID-JAG refused for the request's scope is
 * still redeemable, its jti unused.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeAgent } from '../../../../../runtime/core/operator/agents.ts';
import { mapGroup } from '../../../../../runtime/core/operator/identity-groups.ts';
import { addMachineClient } from '../../../../../runtime/core/operator/machine-clients.ts';
import { type CompanyIdp, startCompanyIdp } from '../../../../support/identity/company-idp.ts';
import { signIdJag, trustIdJags } from '../../../../support/identity/id-jag.ts';
import { basic, JWT_BEARER_GRANT } from '../../../../support/oauth/machine-client.ts';
import { type OAuthGateway, startOAuthGateway } from '../../../../support/oauth/oauth-gateway.ts';
import { ISSUER, issuerEnvironment } from '../../../../support/oauth/oauth-replicas.ts';
import { tokenRequest } from '../../../../support/oauth/raw-flow.ts';
import { type TestSchemas, testSchemas } from '../../../../support/postgres.ts';
import { TEST_REDIS_URL } from '../../../../support/redis.ts';

const schemas: TestSchemas = testSchemas();
let idp: CompanyIdp;

beforeAll(async () => {
  idp = await startCompanyIdp({
    tenant: 'acme',
    redirectUri: `${ISSUER}/sign-in/idp/callback`,
    people: {},
  });
});
afterAll(async () => {
  await idp?.close();
  await schemas.dropAll();
});

describe.each([
  ['the jtis in the store', ''],
  ['the jtis in Redis', TEST_REDIS_URL],
])('a refused ID-JAG writes nothing, %s', (_name, redisUrl) => {
  let running: OAuthGateway;
  let schema: string;
  let client: { id: string; secret: string };

  beforeAll(async () => {
    schema = await schemas.create();
    running = await startOAuthGateway({
      dataDir: mkdtempSync(join(tmpdir(), 'portcullis-id-jag-writes-')),
      databaseUrl: schemas.urlFor(schema),
      environment: issuerEnvironment(redisUrl),
    });
    const ctx = running.gateway.running.gateway.operator('test');
    await trustIdJags(ctx, idp, ISSUER, { connection: 'unikraft' });
    await mapGroup(ctx, {
      workspace: 'default',
      provider: 'acme',
      group: 'admins',
      role: 'operator',
    });
    const made = await addMachineClient(ctx, { workspace: 'default', name: 'claude-desktop' });
    client = { id: made.client.id, secret: made.secret! };
  });
  afterAll(async () => {
    await running?.close();
  });

  function idJag(sub: string, claims: JWTPayload = {}): Promise<string> {
    return signIdJag(
      idp,
      { sub, audience: ISSUER, clientId: client.id },
      { scope: 'tools:read', groups: ['eng'], preferred_username: sub, ...claims },
    );
  }

  function redeem(assertion: string, form: Record<string, string> = {}) {
    return tokenRequest(
      running.url,
      { grant_type: JWT_BEARER_GRANT, assertion, ...form },
      basic(client.id, client.secret),
    );
  }

  /** Every row of every table of the schema but the audit log's, each table's sorted. */
  async function tables(): Promise<Record<string, string[]>> {
    const { rows } = await schemas.query<{ table_name: string }>(
      `select table_name from information_schema.tables
        where table_schema = $1 and table_name not in ('audit_events', 'audit_activity_rollup', 'revision')
        order by table_name`,
      [schema],
    );
    const all: Record<string, string[]> = {};
    for (const { table_name } of rows) {
      const content = await schemas.query(`select * from ${schema}.${table_name}`);
      all[table_name] = content.rows.map((row) => JSON.stringify(row)).sort();
    }
    return all;
  }

  async function auditEvents(): Promise<{ action: string; subject: string | null }[]> {
    const { rows } = await schemas.query<{ action: string; subject: string | null }>(
      `select action, subject from ${schema}.audit_events order by id`,
    );
    return rows;
  }

  /**
   * Presents `assertion`; wants it refused as `refusal` (the audited subject,
   * `error[:reason]`), no row written or changed and the refusal's audit event alone.
   */
  async function refusedWritingNothing(
    assertion: string,
    form: Record<string, string>,
    refusal: string,
  ): Promise<void> {
    const before = await tables();
    const eventsBefore = await auditEvents();
    const reply = await redeem(assertion, form);
    const error = refusal.split(':')[0];
    expect([reply.status, reply.body.error]).toEqual([
      error === 'access_denied' ? 403 : 400,
      error,
    ]);
    expect(reply.body.access_token).toBeUndefined();
    expect(await tables()).toEqual(before);
    expect((await auditEvents()).slice(eventsBefore.length)).toEqual([
      { action: 'oauth.token', subject: refusal },
    ]);
  }

  it("one whose scopes the member's grants reach nothing with: no member, identity, group grant or jti", async () => {
    await refusedWritingNothing(
      await idJag('nora', { scope: 'tools:destructive' }),
      {},
      'invalid_grant:id_jag_scope',
    );
    const store = running.gateway.running.gateway.store;
    expect(await store.identity.identity(idp.issuer, 'nora')).toBeUndefined();
  });

  it('one whose request asks a scope it does not allow, still redeemable afterwards', async () => {
    const assertion = await idJag('olive');
    await refusedWritingNothing(
      assertion,
      { scope: 'tools:read tools:write' },
      'invalid_grant:id_jag_scope',
    );
    // Its jti was not used up: the same ID-JAG, asked right, is redeemed.
    const reply = await redeem(assertion);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.scope).toBe('tools:read');
  });

  it('one for a member whose agent for the client was revoked: no role, group effect, sign-in or jti', async () => {
    const first = await redeem(await idJag('pat'));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const store = running.gateway.running.gateway.store;
    const memberId = (await store.identity.identity(idp.issuer, 'pat'))!.memberId;
    const consent = await store.oauth.consents.byMemberAndClient(memberId, client.id);
    const ctx = running.gateway.running.gateway.operator('test');
    await revokeAgent(ctx, { workspace: 'default', agent: consent!.agentId });
    // A group that would make pat an operator, in an ID-JAG refused after it is read.
    const assertion = await idJag('pat', { groups: ['eng', 'admins'] });
    await refusedWritingNothing(assertion, {}, 'access_denied');
    expect((await store.oauth.members.byId(memberId))?.role).toBe('member');
  });

  it('one for another resource (refused before any write)', async () => {
    await refusedWritingNothing(
      await idJag('quinn', { resource: 'https://elsewhere.example/mcp' }),
      {},
      'invalid_grant:id_jag_resource',
    );
  });

  it('a replayed one: the second presentation writes nothing', async () => {
    const assertion = await idJag('rosa');
    expect((await redeem(assertion)).status).toBe(200);
    await refusedWritingNothing(assertion, {}, 'invalid_grant:id_jag_replayed');
  });
});
