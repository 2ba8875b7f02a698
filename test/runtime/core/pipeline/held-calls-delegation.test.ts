/**
 * A held call, approved, acts for whom the call acted for (docs/approvals.md,
 * docs/identity.md): its run's audit event names the same delegation chain
 * (member, agent, OAuth client, and the IdP of an ID-JAG's token) as the
 * same caller's call that was not held, and on a connection set to act on
 * the member's behalf (RFC 8693) its token exchange acts for the same
 * member, agent and client. Real peers: oidc-provider as the company IdP
 * (its key signs the ID-JAG) and as the upstream's authorization server
 * (token exchange of the subject tokens the gateway signs), an SDK v2 MCP
 * server behind it, and SDK v2 clients that declare tasks on a 2025-11-25
 * session, each answered a task for the held call; an operator approves it
 * through the admin API.
 */
import { randomUUID } from 'node:crypto';
import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { delegationOf } from '../../../../runtime/core/model/delegation.ts';
import { changeActions } from '../../../../runtime/core/operator/actions.ts';
import type { OperatorContext } from '../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../runtime/core/operator/grants.ts';
import { mapGroup } from '../../../../runtime/core/operator/identity-groups.ts';
import { addIdentityProvider } from '../../../../runtime/core/operator/identity-providers.ts';
import { addMachineClient } from '../../../../runtime/core/operator/machine-clients.ts';
import { addMember } from '../../../../runtime/core/operator/members.ts';
import { connectUrl } from '../../../../runtime/core/operator/remote-connections.ts';
import { adminClient, startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { type CompanyIdp, startCompanyIdp } from '../../../support/identity/company-idp.ts';
import { TASKS_CAPABILITIES } from '../../../support/mcp/raw-http.ts';
import { consent } from '../../../support/oauth/consent-bot.ts';
import { basic, JWT_BEARER_GRANT } from '../../../support/oauth/machine-client.ts';
import {
  authorizeUrl,
  exchange,
  pkce,
  registerClient,
  tokenRequest,
} from '../../../support/oauth/raw-flow.ts';
import { type OAuthUpstream, startOAuthUpstream } from '../../../support/remote/oauth-upstream.ts';

const UPSTREAM_CLIENT = 'portcullis-at-weather';
const UPSTREAM_SECRET = 'weather-client-secret-8d2f6a1c3e';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
const PASSWORD = 'correct horse battery staple';
/** Called as it is (never held), and held: the same connection, so the same chain. */
const UNHELD = 'wx__get_weather';
const HELD = 'wx__count';
const APPROVALS = '/workspaces/default/approvals';
const DEV = {
  PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
  PORTCULLIS_IDP_ACME_SECRET: 'company-secret-acme-1b7e4d9a2c',
  PORTCULLIS_APPROVAL_WAIT_MS: '0',
};

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON replies field by field
type Json = Record<string, any>;

let gateway: TestGateway;
let idp: CompanyIdp;
let upstream: OAuthUpstream;
let ctx: OperatorContext;
let machine: { id: string; secret: string };

beforeAll(async () => {
  gateway = await startTestGateway({ environment: DEV });
  idp = await startCompanyIdp({
    tenant: 'acme',
    redirectUri: `${gateway.url}/sign-in/idp/callback`,
    people: {},
  });
  upstream = await startOAuthUpstream({
    tenant: 'weather',
    registration: false,
    clientCredentials: true,
    clients: [
      {
        client_id: UPSTREAM_CLIENT,
        client_secret: UPSTREAM_SECRET,
        grant_types: ['client_credentials', TOKEN_EXCHANGE],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    // The gateway's subject tokens only; the exchanged token's subject says whom it acts for.
    tokenExchange: {
      async verify(token, type) {
        if (type !== JWT_TYPE) throw new Error('not a subject token of the gateway');
        const { payload } = await jwtVerify(
          token,
          createRemoteJWKSet(new URL(`${gateway.url}/oauth/jwks`)),
          { issuer: gateway.url, audience: upstream.issuer, typ: 'JWT' },
        );
        const agent = (payload.act as { sub?: string } | undefined)?.sub ?? '-';
        return { sub: `${payload.sub}/${agent}/${String(payload.client_id ?? '-')}` };
      },
    },
  });
  ctx = gateway.running.gateway.operator('test');
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
    gateway.url,
  );
  await connectUrl(ctx, { workspace: 'default', url: upstream.mcp.url, name: 'wx' });
  const configured = await adminClient(gateway.url, gateway.adminToken!)(
    'PUT',
    '/workspaces/default/connections/wx/auth',
    {
      clientCredentials: 'client_secret_basic',
      clientId: UPSTREAM_CLIENT,
      clientSecret: UPSTREAM_SECRET,
      onBehalfOf: 'portcullis',
    },
  );
  expect(configured.status, configured.text).toBe(200);
  await changeActions(ctx, 'review', { workspace: 'default', connection: 'wx', all: true });
  await changeActions(ctx, 'ask', { workspace: 'default', connection: 'wx', actions: [HELD] });
  await mapGroup(ctx, {
    workspace: 'default',
    provider: 'acme',
    group: 'eng',
    connection: 'wx',
    scope: 'reads',
  });
  const made = await addMachineClient(ctx, { workspace: 'default', name: 'claude-desktop' });
  machine = { id: made.client.id, secret: made.secret! };
  await addMember(ctx, { workspace: 'default', name: 'bea', password: PASSWORD });
  await grant(ctx, { workspace: 'default', member: 'bea', connection: 'wx', scope: 'reads' });
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await Promise.all([idp?.close(), upstream?.close()]);
});

/** Our access token for `sub`, redeemed from an ID-JAG the company IdP signed for the machine client. */
async function idJagToken(sub: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const assertion = await idp.signWithIdpKey(
    {
      iss: idp.issuer,
      sub,
      aud: gateway.url,
      client_id: machine.id,
      jti: randomUUID(),
      iat: now,
      exp: now + 300,
      resource: `${gateway.url}/mcp`,
      scope: 'tools:read',
      groups: ['eng'],
      preferred_username: sub,
    },
    'oauth-id-jag+jwt',
  );
  const reply = await tokenRequest(
    gateway.url,
    { grant_type: JWT_BEARER_GRANT, assertion },
    basic(machine.id, machine.secret),
  );
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return String(reply.body.access_token);
}

/** Our access token for a client registered by DCR, approved on the consent page by `member`. */
async function consentToken(member: string): Promise<string> {
  const client = await registerClient(gateway.url);
  const { verifier, challenge } = pkce();
  const { location } = await consent(
    authorizeUrl(gateway.url, client, { code_challenge: challenge, scope: 'tools:read' }),
    { member, password: PASSWORD },
  );
  const reply = await exchange(gateway.url, client, {
    code: location.searchParams.get('code')!,
    verifier,
  });
  expect(reply.status).toBe(200);
  return String(reply.body.access_token);
}

/** An SDK v2 client of `token` declaring tasks, on a 2025-11-25 session. */
async function taskClient(token: string): Promise<ClientV2> {
  const client = new ClientV2({ name: 'held-delegation', version: '1.0.0' }, {
    capabilities: TASKS_CAPABILITIES,
  } as never);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

function request(client: ClientV2, method: string, params: Json): Promise<Json> {
  return client.request(
    { method, params } as never,
    z.object({}).passthrough() as never,
  ) as Promise<Json>;
}

/** The event of the agent's last call of `action` that went upstream, and whom the upstream's token acted for. */
async function lastCall(agentId: string, action: string, subject?: string) {
  const { store } = gateway.running.gateway;
  for (;;) {
    const events = await store.audit.query({ action, actorId: agentId, limit: 50 });
    const ran = events.find(
      (e) =>
        e.upstreamHost !== null &&
        e.decision === 'allowed' &&
        (subject === undefined || e.subject === subject),
    );
    if (ran) return ran;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * `token`'s call not held, then its held call answered a task, approved:
 * the delegation chain each event names, and whom the upstream's token
 * acted for on each (the exchanged token's subject: member/agent/client).
 */
async function unheldThenApproved(token: string) {
  const agentId = String(decodeJwt(token).agent);
  const client = await taskClient(token);
  try {
    const direct = await request(client, 'tools/call', {
      name: UNHELD,
      arguments: { city: 'Oslo' },
    });
    expect(direct.isError ?? false, JSON.stringify(direct)).toBe(false);
    const unheld = await lastCall(agentId, UNHELD);
    const unheldActor = upstream.acceptedClaims.at(-1)?.sub;

    const steps = upstream.acceptedClaims.length + 1;
    const started = await request(client, 'tools/call', { name: HELD, arguments: { steps } });
    expect(started).toMatchObject({ status: 'working' });
    const admin = adminClient(gateway.url, gateway.adminToken!);
    const approval = ((await admin('GET', APPROVALS)).body as Json[]).find(
      (a) => a.arguments?.steps === steps && a.state === 'pending',
    )!;
    expect(approval).toMatchObject({ task: true });
    expect((await admin('POST', `${APPROVALS}/${approval.id}/approve`, {})).status).toBe(200);
    const approved = await lastCall(agentId, HELD, `approval:${approval.id}`);
    let done = await request(client, 'tasks/get', { taskId: started.taskId });
    while (done.status === 'working') {
      await new Promise((resolve) => setTimeout(resolve, 50));
      done = await request(client, 'tasks/get', { taskId: started.taskId });
    }
    expect(done, JSON.stringify(done)).toMatchObject({ status: 'completed' });
    expect(done.result.isError ?? false).toBe(false);
    const approvedActor = upstream.acceptedClaims.at(-1)?.sub;
    return { agentId, unheld, approved, unheldActor, approvedActor };
  } finally {
    await client.close();
  }
}

it("names the client and the IdP of an ID-JAG's token in the approved run's chain, as an unheld call does", async () => {
  const token = await idJagToken('dana');
  const memberId = (await gateway.running.gateway.store.identity.identity(idp.issuer, 'dana'))!
    .memberId;
  const { agentId, unheld, approved, unheldActor, approvedActor } = await unheldThenApproved(token);
  const chain = { memberId, agentId, clientId: machine.id, idp: 'acme' };
  expect(delegationOf(unheld.delegation)).toEqual(chain);
  expect(approved.delegation).toBe(unheld.delegation);
  expect(approved.outcome).toBe('ok');
  // The token exchange acted for the same member, agent and client both times.
  expect(unheldActor).toBe(`${memberId}/${agentId}/${machine.id}`);
  expect(approvedActor).toBe(unheldActor);
});

it("names a consent's client in the approved run's chain and exchanges for it, as an unheld call does", async () => {
  const token = await consentToken('bea');
  const clientId = String(decodeJwt(token).client_id);
  const { agentId, unheld, approved, unheldActor, approvedActor } = await unheldThenApproved(token);
  const chain = delegationOf(unheld.delegation);
  expect(chain).toEqual({ memberId: expect.any(String), agentId, clientId });
  expect(approved.delegation).toBe(unheld.delegation);
  expect(approved.outcome).toBe('ok');
  expect(unheldActor).toBe(`${chain?.memberId}/${agentId}/${clientId}`);
  expect(approvedActor).toBe(unheldActor);
});
