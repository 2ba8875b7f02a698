/**
 * Enterprise-Managed Authorization: oidc-provider as two companies' IdPs
 * (both trusted with `--id-jag`, their keys discovered from their OpenID
 * metadata), a machine client redeeming ID-JAGs with the JWT bearer grant,
 * and the MCP SDK client calling a tool with the token it gets. oidc-provider
 * has no ID-JAG issuance of its own, so the test signs each ID-JAG with the
 * IdP's own key, the one oidc-provider publishes at its `jwks_uri`.
 */
import { decodeJwt, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapGroup } from '../../../../../runtime/core/operator/identity-groups.ts';
import { addMachineClient } from '../../../../../runtime/core/operator/machine-clients.ts';
import { type CompanyIdp, startCompanyIdp } from '../../../../support/identity/company-idp.ts';
import { ID_JAG, idJagClaims, trustIdJags } from '../../../../support/identity/id-jag.ts';
import { basic, JWT_BEARER_GRANT, sdkClient } from '../../../../support/oauth/machine-client.ts';
import {
  type OAuthGateway,
  READ_ARGS,
  READ_TOOL,
  startOAuthGateway,
} from '../../../../support/oauth/oauth-gateway.ts';
import { tokenRequest } from '../../../../support/oauth/raw-flow.ts';
import { runPortcullisHere } from '../../../../support/run-cli.ts';

const DEV = { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' };
let running: OAuthGateway;
let acme: CompanyIdp;
let globex: CompanyIdp;
let client: { id: string; secret: string };
let otherClient: string;

beforeAll(async () => {
  running = await startOAuthGateway({ environment: DEV });
  const redirectUri = `${running.url}/sign-in/idp/callback`;
  acme = await startCompanyIdp({ tenant: 'acme', redirectUri, people: {} });
  globex = await startCompanyIdp({ tenant: 'globex', redirectUri, people: {} });
  const env = { ...DEV, PORTCULLIS_DATA_DIR: running.gateway.dataDir };
  const added = await runPortcullisHere(
    [
      'idp',
      'add',
      'acme',
      '--issuer',
      acme.issuer,
      '--client-id',
      acme.clientId,
      '--client-secret-env',
      'PORTCULLIS_IDP_ACME_SECRET',
      '--groups-claim',
      'groups',
      '--id-jag',
    ],
    env,
  );
  expect(added.code, added.stderr).toBe(0);
  const ctx = running.gateway.running.gateway.operator('test');
  await trustIdJags(ctx, globex, running.url, { name: 'globex', connection: 'unikraft' });
  await mapGroup(ctx, {
    workspace: 'default',
    provider: 'acme',
    group: 'eng',
    connection: 'unikraft',
    scope: 'reads',
  });
  const made = await addMachineClient(ctx, { workspace: 'default', name: 'claude-desktop' });
  client = { id: made.client.id, secret: made.secret! };
  otherClient = (await addMachineClient(ctx, { workspace: 'default', name: 'other-app' })).client
    .id;
});
afterAll(async () => {
  await running?.close();
  await acme?.close();
  await globex?.close();
});

function grantFor(idp: CompanyIdp, sub: string, claims: JWTPayload = {}): JWTPayload {
  return idJagClaims(
    idp,
    { sub, audience: running.url, clientId: client.id },
    { scope: 'tools:read tools:write', groups: ['eng'], preferred_username: sub, ...claims },
  );
}

function redeem(assertion: string, form: Record<string, string> = {}) {
  return tokenRequest(
    running.url,
    { grant_type: JWT_BEARER_GRANT, assertion, ...form },
    basic(client.id, client.secret),
  );
}

async function lastRefusal(): Promise<string> {
  const [event] = await running.gateway.running.gateway.store.audit.query({
    action: 'oauth.token',
    limit: 1,
  });
  return String(event?.subject);
}

it('gives a token for the member it names, narrowed to what their grants reach, used by the MCP SDK client', async () => {
  const reply = await redeem(await acme.signWithIdpKey(grantFor(acme, 'dana'), ID_JAG));
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  // tools:write is allowed by the ID-JAG, but dana's group grants reads only.
  expect(reply.body).toMatchObject({ token_type: 'Bearer', scope: 'tools:read' });
  expect(reply.body.refresh_token).toBeUndefined();
  const store = running.gateway.running.gateway.store;
  const identity = await store.identity.identity(acme.issuer, 'dana');
  expect(decodeJwt(String(reply.body.access_token)).sub).toBe(identity?.memberId);
  const mcp = await sdkClient(running.url, String(reply.body.access_token));
  expect((await mcp.callTool({ name: READ_TOOL, arguments: READ_ARGS })).isError).toBeFalsy();
  await mcp.close();
  const [issued] = await store.audit.query({ action: 'oauth.token.id_jag', limit: 1 });
  expect(issued?.subject).toBe(`acme:${identity?.memberId}:${client.id}`);
});

it('makes two members of one sub at two IdPs', async () => {
  const fromAcme = await redeem(await acme.signWithIdpKey(grantFor(acme, 'carol'), ID_JAG));
  const fromGlobex = await redeem(await globex.signWithIdpKey(grantFor(globex, 'carol'), ID_JAG));
  expect([fromAcme.status, fromGlobex.status]).toEqual([200, 200]);
  const subs = [fromAcme, fromGlobex].map((r) => decodeJwt(String(r.body.access_token)).sub);
  expect(subs[0]).not.toBe(subs[1]);
});

describe('refuses, with its reason audited', () => {
  const now = () => Math.floor(Date.now() / 1000);
  it.each<[string, () => Promise<string>, string]>([
    [
      'another audience',
      () =>
        acme.signWithIdpKey(grantFor(acme, 'erin', { aud: 'https://other-as.example' }), ID_JAG),
      'id_jag_audience',
    ],
    [
      'another resource',
      () =>
        acme.signWithIdpKey(
          grantFor(acme, 'erin', { resource: 'https://elsewhere.example/mcp' }),
          ID_JAG,
        ),
      'id_jag_resource',
    ],
    [
      'an expired one',
      () =>
        acme.signWithIdpKey(grantFor(acme, 'erin', { iat: now() - 900, exp: now() - 600 }), ID_JAG),
      'id_jag_expired',
    ],
    [
      'one signed by another key',
      () => acme.signWithOtherKey(grantFor(acme, 'erin'), ID_JAG),
      'id_jag_signature',
    ],
    [
      'one issued to another client',
      () => acme.signWithIdpKey(grantFor(acme, 'erin', { client_id: otherClient }), ID_JAG),
      'id_jag_client',
    ],
    [
      'one without the ID-JAG type',
      () => acme.signWithIdpKey(grantFor(acme, 'erin')),
      'id_jag_type',
    ],
    [
      'one from an issuer not trusted',
      () =>
        acme.signWithIdpKey(
          grantFor(acme, 'erin', { iss: 'https://login.unknown.example' }),
          ID_JAG,
        ),
      'id_jag_issuer',
    ],
    [
      'one whose scopes the member reaches nothing with',
      () => acme.signWithIdpKey(grantFor(acme, 'erin', { scope: 'tools:destructive' }), ID_JAG),
      'id_jag_scope',
    ],
  ])('%s', async (_name, make, reason) => {
    const reply = await redeem(await make());
    expect([reply.status, reply.body.error]).toEqual([400, 'invalid_grant']);
    expect(await lastRefusal()).toBe(`invalid_grant:${reason}`);
  });

  it('a replayed one', async () => {
    const assertion = await acme.signWithIdpKey(grantFor(acme, 'frank'), ID_JAG);
    expect((await redeem(assertion)).status).toBe(200);
    expect((await redeem(assertion)).body.error).toBe('invalid_grant');
    expect(await lastRefusal()).toBe('invalid_grant:id_jag_replayed');
  });

  it('an unsigned one (alg none) with groups, making no member and giving no grant', async () => {
    const reply = await redeem(acme.unsigned(grantFor(acme, 'mallory', { groups: ['eng'] })));
    expect(reply.body.error).toBe('invalid_grant');
    expect(await lastRefusal()).toBe('invalid_grant:id_jag_signature');
    const store = running.gateway.running.gateway.store;
    expect(await store.identity.identity(acme.issuer, 'mallory')).toBeUndefined();
  });

  it('one presented by a public client', async () => {
    const reply = await tokenRequest(running.url, {
      grant_type: JWT_BEARER_GRANT,
      client_id: client.id,
      assertion: await acme.signWithIdpKey(grantFor(acme, 'gina'), ID_JAG),
    });
    expect(reply.body.error).toBe('invalid_client');
  });
});
