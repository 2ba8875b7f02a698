/**
 * A call made with an access token issued from an ID-JAG acts for the
 * member the company's IdP named: its audit event records the delegation
 * chain (member, agent, client and the IdP that issued the ID-JAG), as a
 * call forwarded by token exchange does, so the console's audit API and
 * `portcullis audit --member` say on whose behalf it ran and through whom.
 * oidc-provider is the IdP (its published key signs the ID-JAG); the MCP SDK
 * client makes the call. A token from the password flow's consent names no
 * IdP, and a machine client's own token no chain at all.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { delegationOf } from '../../../../../runtime/core/model/delegation.ts';
import { queryAudit } from '../../../../../runtime/core/operator/audit-query.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { addMachineClient } from '../../../../../runtime/core/operator/machine-clients.ts';
import { type CompanyIdp, startCompanyIdp } from '../../../../support/identity/company-idp.ts';
import {
  type ClientSecret,
  redeemIdJag,
  signIdJag,
  trustIdJags,
} from '../../../../support/identity/id-jag.ts';
import { basic, sdkClient } from '../../../../support/oauth/machine-client.ts';
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
let client: ClientSecret;

beforeAll(async () => {
  running = await startOAuthGateway({ environment: DEV });
  acme = await startCompanyIdp({
    tenant: 'acme',
    redirectUri: `${running.url}/sign-in/idp/callback`,
    people: {},
  });
  const ctx = running.gateway.running.gateway.operator('test');
  await trustIdJags(ctx, acme, running.url, { connection: 'unikraft' });
  const made = await addMachineClient(ctx, { workspace: 'default', name: 'claude-desktop' });
  client = { id: made.client.id, secret: made.secret! };
  await grant(ctx, { workspace: 'default', agent: 'claude-desktop', connection: 'unikraft' });
});
afterAll(async () => {
  await running?.close();
  await acme?.close();
});

async function idJagToken(sub: string): Promise<string> {
  const assertion = await signIdJag(
    acme,
    { sub, audience: running.url, clientId: client.id },
    { scope: 'tools:read', groups: ['eng'], preferred_username: sub },
  );
  return redeemIdJag(running.url, client, assertion);
}

async function callRead(token: string): Promise<void> {
  const mcp = await sdkClient(running.url, token);
  expect((await mcp.callTool({ name: READ_TOOL, arguments: READ_ARGS })).isError).toBeFalsy();
  await mcp.close();
}

it("records the chain through the IdP in the call's audit event, read back by name", async () => {
  const token = await idJagToken('dana');
  const { store } = running.gateway.running.gateway;
  const memberId = (await store.identity.identity(acme.issuer, 'dana'))!.memberId;
  const agentId = String(decodeJwt(token).agent);
  await callRead(token);

  const [call] = await store.audit.query({ action: READ_TOOL, actorId: agentId, limit: 1 });
  expect(call?.outcome).toBe('ok');
  expect(delegationOf(call?.delegation)).toEqual({
    memberId,
    agentId,
    clientId: client.id,
    idp: 'acme',
  });

  const ctx = running.gateway.running.gateway.operator('test');
  const views = await queryAudit(ctx, { workspace: 'default', member: 'dana', action: READ_TOOL });
  expect(views.map((v) => v.onBehalfOf)).toEqual([
    { member: 'dana', agent: expect.any(String), client: client.id, idp: 'acme' },
  ]);
});

it('shows whom it acted for and the IdP in portcullis audit --member', async () => {
  await callRead(await idJagToken('erin'));
  const env = { ...DEV, PORTCULLIS_DATA_DIR: running.gateway.dataDir };
  const table = await runPortcullisHere(['audit', '--member', 'erin', '--action', READ_TOOL], env);
  expect(table.code, table.stderr).toBe(0);
  const [head, row] = table.stdout.split('\n');
  expect(head).toMatch(/\bFOR$/);
  expect(row).toMatch(/\berin via idp acme\s*$/);
});

it("records no chain for a machine client's own token", async () => {
  const reply = await tokenRequest(
    running.url,
    { grant_type: 'client_credentials', scope: 'tools:read' },
    basic(client.id, client.secret),
  );
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  const token = String(reply.body.access_token);
  await callRead(token);
  const [call] = await running.gateway.running.gateway.store.audit.query({
    action: READ_TOOL,
    actorId: String(decodeJwt(token).agent),
    limit: 1,
  });
  expect(call?.outcome).toBe('ok');
  expect(call?.delegation ?? null).toBeNull();
});
