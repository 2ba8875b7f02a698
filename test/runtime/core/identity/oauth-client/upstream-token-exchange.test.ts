/**
 * A remote connection that acts on the member's behalf (issue 35, RFC 8693)
 * and whose shared credential is the workspace's own client (client
 * credentials), with real peers: oidc-provider as the company's IdP the
 * members sign in through, oidc-provider as the upstream's authorization
 * server (client credentials, and a token exchange grant that takes only
 * the IdP's ID tokens for the gateway's client there), an SDK v2 MCP server
 * behind it that verifies each bearer's audience and records what it was
 * sent, and SDK clients through the gateway: an operator's agent key, and
 * agents members' consents made.
 *
 * A member's call reaches the upstream with a token exchanged for their ID
 * token (our own token never does); a repeated call exchanges nothing; a
 * token close to its expiry is exchanged again; a member without an IdP
 * sign-in gets `idp_session_required`; a refused exchange is
 * `upstream_token_exchange_failed`; every call's audit event names the
 * chain (member, agent, client); no secret or token is in the log, the
 * audit log, a reply or the command's output, in any of its encodings.
 */
import { Writable } from 'node:stream';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLog } from '../../../../../runtime/compose/log.ts';
import { changeActions } from '../../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { addIdentityProvider } from '../../../../../runtime/core/operator/identity-providers.ts';
import { addMember } from '../../../../../runtime/core/operator/members.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import {
  type AdminReply,
  adminClient,
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../../support/gateway.ts';
import { type CompanyIdp, startCompanyIdp } from '../../../../support/identity/company-idp.ts';
import {
  memberTokensByPassword,
  memberTokensThroughIdp,
} from '../../../../support/oauth/member-tokens.ts';
import {
  gatewaySubjectClaims,
  ID_TOKEN_TYPE,
  JWT_TYPE,
  startExchangeUpstream,
  UPSTREAM_CLIENT,
} from '../../../../support/remote/exchange-upstream.ts';
import type { OAuthUpstream } from '../../../../support/remote/oauth-upstream.ts';
import { runPortcullisHere } from '../../../../support/run-cli.ts';

const IDP_SECRET = 'company-secret-acme-7f3a9c2e5b';
const UPSTREAM_SECRET = 'weather-client-secret-4c1e8b2d9f';
const PASSWORD = 'correct horse battery staple';
const DEV = {
  PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
  PORTCULLIS_IDP_ACME_SECRET: IDP_SECRET,
  UPSTREAM_SECRET,
};

let gateway: TestGateway;
let idp: CompanyIdp;
let upstream: OAuthUpstream;
let ctx: OperatorContext;
let logged = '';
/** Every reply and command output the test saw, for the secret check. */
let seen = '';
/** Our own access tokens, handed to members' clients: none may reach the upstream. */
const ours: string[] = [];
let configured: AdminReply;
let grantsAtConfiguration = 0;
let opsKey = '';

beforeAll(async () => {
  const log = createLog({
    level: 'debug',
    destination: new Writable({
      write(chunk, _encoding, done) {
        logged += String(chunk);
        done();
      },
    }),
  });
  gateway = await startTestGateway({ environment: DEV, log });
  idp = await startCompanyIdp({
    tenant: 'acme',
    redirectUri: `${gateway.url}/sign-in/idp/callback`,
    people: {
      carol: { preferred_username: 'carol' },
      dave: { preferred_username: 'dave' },
      erin: { preferred_username: 'erin' },
      gina: { preferred_username: 'gina' },
      hal: { preferred_username: 'hal' },
    },
  });
  const idpKeys = createRemoteJWKSet(new URL(`${idp.issuer}/jwks`));
  // Only the company IdP's ID tokens issued to the gateway's client there are exchanged.
  upstream = await startExchangeUpstream(UPSTREAM_SECRET, async (token, type) => {
    // A subject token the gateway signed, for this server: trusted by the gateway's keys.
    if (type === JWT_TYPE) {
      const payload = await gatewaySubjectClaims(token, gateway.url, gateway.url, upstream.issuer);
      return { sub: `portcullis:${String(payload.sub)}` };
    }
    if (type !== ID_TOKEN_TYPE) throw new Error('not an ID token');
    const { payload } = await jwtVerify(token, idpKeys, {
      issuer: idp.issuer,
      audience: idp.clientId,
    });
    return { sub: String(payload.sub) };
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
    },
    gateway.url,
  );
  await addMember(ctx, { workspace: 'default', name: 'ada', password: PASSWORD });
  // The upstream wants a sign-in: kept as a draft until its auth is set.
  const draft = await connectUrl(ctx, { workspace: 'default', url: upstream.mcp.url, name: 'wx' });
  expect(draft.next).toBe('sign_in');
  const before = upstream.clientCredentialGrants;
  configured = await admin()('PUT', '/workspaces/default/connections/wx/auth', {
    clientCredentials: 'client_secret_basic',
    clientId: UPSTREAM_CLIENT,
    clientSecret: UPSTREAM_SECRET,
    onBehalfOf: 'id_token',
    audience: 'weather-api',
  });
  seen += configured.text;
  grantsAtConfiguration = upstream.clientCredentialGrants - before;
  await changeActions(ctx, 'review', { workspace: 'default', connection: 'wx', all: true });
  const { key } = await createAgent(ctx, { workspace: 'default', name: 'ops-agent' });
  opsKey = key;
  await grant(ctx, { workspace: 'default', agent: 'ops-agent', connection: 'wx', scope: 'reads' });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([idp?.close(), upstream?.close()]);
});

const admin = () => adminClient(gateway.url, gateway.adminToken!);

/** A member's client, through the consent page's "Sign in with acme": our access token for it. */
async function memberTokenThroughIdp(person: string): Promise<string> {
  const { access, refresh } = await memberTokensThroughIdp(gateway.url, person);
  ours.push(access, refresh);
  return access;
}

/** A password member's client (no IdP sign-in): our access token for it. */
async function memberTokenByPassword(member: string): Promise<string> {
  const { access, refresh } = await memberTokensByPassword(gateway.url, member, PASSWORD);
  ours.push(access, refresh);
  return access;
}

async function memberCall(token: string) {
  const client = await mcpClient(gateway.url, token);
  try {
    const reply = await callTool(client, 'wx__get_weather', { city: 'Oslo' });
    seen += JSON.stringify(reply);
    return reply;
  } finally {
    await client.close();
  }
}

async function memberId(name: string): Promise<string> {
  return (await gateway.running.gateway.store.oauth.members.byName(name))!.id;
}

describe('the connection as the workspace’s own client, and on members’ behalf', () => {
  it('sets both through the admin API, and connects the draft with a client credentials token', async () => {
    const reply = configured;
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({
      connection: 'wx',
      onBehalfOf: { subjectToken: 'id_token', audience: 'weather-api' },
      clientCredentials: 'client_secret_basic',
      connected: { next: 'review' },
    });
    expect(grantsAtConfiguration).toBe(1);
    const listed = await admin()('GET', '/workspaces/default/connections');
    seen += listed.text;
    const wx = (listed.body as Array<{ name: string; remote?: { signIn?: unknown } }>).find(
      (c) => c.name === 'wx',
    );
    expect(wx?.remote?.signIn).toMatchObject({
      state: 'signed_in',
      clientCredentials: 'client_secret_basic',
      onBehalfOf: { subjectToken: 'id_token', audience: 'weather-api' },
    });
  });

  it("serves an operator's agent with the workspace's own token, exchanging nothing", async () => {
    const exchanges = upstream.exchanges.length;
    const client = await mcpClient(gateway.url, opsKey);
    const reply = await callTool(client, 'wx__get_weather', { city: 'Oslo' });
    await client.close();
    expect(reply.isError ?? false).toBe(false);
    expect(upstream.exchanges.length).toBe(exchanges);
    // oidc-provider's client credentials token is the client's own: no member in it.
    expect(upstream.acceptedClaims.at(-1)).toMatchObject({
      client_id: UPSTREAM_CLIENT,
      sub: UPSTREAM_CLIENT,
    });
  });

  it("carries a member's call with a token exchanged for their ID token, never ours, once", async () => {
    const token = await memberTokenThroughIdp('carol');
    await grant(ctx, { workspace: 'default', member: 'carol', connection: 'wx', scope: 'reads' });
    const exchanges = upstream.exchanges.length;
    const received = upstream.received.length;
    const reply = await memberCall(token);
    expect(reply.isError ?? false, JSON.stringify(reply)).toBe(false);
    expect(upstream.exchanges.slice(exchanges)).toHaveLength(1);
    const [sent] = upstream.exchanges.slice(exchanges);
    expect(sent).toMatchObject({
      subjectTokenType: ID_TOKEN_TYPE,
      audience: 'weather-api',
      resource: upstream.mcp.url,
      outcome: 'ok',
    });
    // The subject token is the IdP's ID token for the gateway's client there.
    const { payload } = await jwtVerify(
      sent!.subjectToken,
      createRemoteJWKSet(new URL(`${idp.issuer}/jwks`)),
      { issuer: idp.issuer, audience: idp.clientId },
    );
    expect(payload.sub).toBe('carol');
    // The upstream was sent the exchanged token (its audience the MCP endpoint, its subject carol), never ours.
    expect(upstream.acceptedClaims.at(-1)).toMatchObject({ sub: 'carol', aud: upstream.mcp.url });
    for (const bearer of upstream.received.slice(received)) expect(ours).not.toContain(bearer);
    expect(upstream.received.slice(received).some((b) => b === token)).toBe(false);
    // A second call: no exchange, no token request at the IdP or the upstream's server.
    const idpRequests = idp.tokenRequests;
    const again = await memberCall(token);
    expect(again.isError ?? false).toBe(false);
    expect(upstream.exchanges.length).toBe(exchanges + 1);
    expect(idp.tokenRequests).toBe(idpRequests);
    expect(upstream.acceptedClaims.at(-1)?.sub).toBe('carol');
  });

  it('exchanges again once the cached token is within a minute of its expiry', async () => {
    const token = await memberTokenThroughIdp('dave');
    await grant(ctx, { workspace: 'default', member: 'dave', connection: 'wx', scope: 'reads' });
    upstream.issuedTtl = 30;
    try {
      const exchanges = upstream.exchanges.length;
      expect((await memberCall(token)).isError ?? false).toBe(false);
      expect(upstream.exchanges.length).toBe(exchanges + 1);
      // The token it got expires in 30 s: due already, so the next call exchanges again.
      expect((await memberCall(token)).isError ?? false).toBe(false);
      expect(upstream.exchanges.length).toBe(exchanges + 2);
    } finally {
      upstream.issuedTtl = 3600;
    }
    expect(upstream.acceptedClaims.at(-1)?.sub).toBe('dave');
  });

  it('refuses a member without an IdP sign-in with idp_session_required, exchanging nothing', async () => {
    await grant(ctx, { workspace: 'default', member: 'ada', connection: 'wx', scope: 'reads' });
    const token = await memberTokenByPassword('ada');
    const exchanges = upstream.exchanges.length;
    const received = upstream.received.length;
    const reply = await memberCall(token);
    expect(reply.isError).toBe(true);
    expect(reply.structuredContent?.error?.code).toBe('idp_session_required');
    expect(reply.structuredContent?.error?.message).toContain(
      'the member must sign in through the identity provider again',
    );
    expect(upstream.exchanges.length).toBe(exchanges);
    expect(upstream.received.length).toBe(received);
  });

  it('exchanges a subject token Portcullis signs for a member without an IdP sign-in (--on-behalf-of portcullis)', async () => {
    await addMember(ctx, { workspace: 'default', name: 'bea', password: PASSWORD });
    await grant(ctx, { workspace: 'default', member: 'bea', connection: 'wx', scope: 'reads' });
    const token = await memberTokenByPassword('bea');
    const set = await admin()('PUT', '/workspaces/default/connections/wx/auth', {
      onBehalfOf: 'portcullis',
    });
    expect(set.status, set.text).toBe(200);
    try {
      const exchanges = upstream.exchanges.length;
      const reply = await memberCall(token);
      expect(reply.isError ?? false, JSON.stringify(reply)).toBe(false);
      const [sent] = upstream.exchanges.slice(exchanges);
      expect(sent).toMatchObject({ subjectTokenType: JWT_TYPE, outcome: 'ok' });
      // Not our access token: another type, for the upstream's issuer, naming the member and the agent.
      const { payload, protectedHeader } = await jwtVerify(
        sent!.subjectToken,
        createRemoteJWKSet(new URL(`${gateway.url}/oauth/jwks`)),
        { issuer: gateway.url, audience: upstream.issuer },
      );
      expect(protectedHeader.typ).toBe('JWT');
      const bea = await memberId('bea');
      expect(payload.sub).toBe(bea);
      expect(payload.act).toMatchObject({ sub: expect.any(String) });
      expect(ours).not.toContain(sent!.subjectToken);
      expect(upstream.acceptedClaims.at(-1)).toMatchObject({ sub: `portcullis:${bea}` });
    } finally {
      const back = await admin()('PUT', '/workspaces/default/connections/wx/auth', {
        onBehalfOf: 'id_token',
        audience: 'weather-api',
      });
      expect(back.status).toBe(200);
    }
  });

  it('fails with upstream_token_exchange_failed when the server refuses the exchange', async () => {
    // The upstream exchanges ID tokens only; the connection is set to send the access token.
    const set = await runPortcullisHere(
      ['connection', 'auth', 'wx', '--on-behalf-of', 'access_token', '--audience', 'weather-api'],
      { ...DEV, PORTCULLIS_DATA_DIR: gateway.dataDir, PORTCULLIS_PUBLIC_URL: gateway.url },
    );
    seen += set.stdout + set.stderr;
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain("members' calls carry a token exchanged for their access_token");
    try {
      const token = await memberTokenThroughIdp('erin');
      await grant(ctx, { workspace: 'default', member: 'erin', connection: 'wx', scope: 'reads' });
      const exchanges = upstream.exchanges.length;
      const reply = await memberCall(token);
      expect(reply.structuredContent?.error?.code).toBe('upstream_token_exchange_failed');
      expect(reply.structuredContent?.error?.detail).toMatchObject({ oauthError: 'invalid_grant' });
      expect(upstream.exchanges.slice(exchanges).map((e) => e.outcome)).toEqual(['invalid_grant']);
    } finally {
      const back = await admin()('PUT', '/workspaces/default/connections/wx/auth', {
        onBehalfOf: 'id_token',
        audience: 'weather-api',
      });
      expect(back.status).toBe(200);
    }
  });

  it('refuses bad input without writing it', async () => {
    const bad = await admin()('PUT', '/workspaces/default/connections/wx/auth', {
      onBehalfOf: 'refresh_token',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_input');
    const key = await admin()('PUT', '/workspaces/default/connections/wx/auth', {
      clientCredentials: 'private_key_jwt',
      clientId: UPSTREAM_CLIENT,
      clientKey: '{"kty":"EC"}',
    });
    expect(key.status).toBe(400);
    expect(key.body.error.field).toBe('clientKey');
    const listed = await runPortcullisHere(['connections'], {
      ...DEV,
      PORTCULLIS_DATA_DIR: gateway.dataDir,
    });
    seen += listed.stdout + listed.stderr;
    expect(listed.stdout).toContain(
      "as the workspace's own client (client_secret_basic), members' calls on their behalf (id_token)",
    );
  });
});

describe('the audit log', () => {
  it("names the delegation chain on members' calls, and none on the operator agent's", async () => {
    await grant(ctx, { workspace: 'default', member: 'ada', connection: 'wx', scope: 'reads' });
    const [ginaToken, adaToken] = [
      await memberTokenThroughIdp('gina'),
      await memberTokenByPassword('ada'),
    ];
    await grant(ctx, { workspace: 'default', member: 'gina', connection: 'wx', scope: 'reads' });
    await memberCall(ginaToken);
    await memberCall(ginaToken);
    await memberCall(adaToken);
    const client = await mcpClient(gateway.url, opsKey);
    await callTool(client, 'wx__get_weather', { city: 'Oslo' });
    await client.close();
    const store = gateway.running.gateway.store;
    const calls = await store.audit.query({ action: 'wx__get_weather' });
    const gina = await memberId('gina');
    const ada = await memberId('ada');
    const agents = await store.agents.list((await store.workspaces.byName('default'))!.id);
    const ofMember = (id: string) => agents.filter((a) => a.memberId === id).map((a) => a.id);
    const ginaCalls = calls.filter((e) => ofMember(gina).includes(e.actorId ?? ''));
    expect(ginaCalls.length).toBeGreaterThanOrEqual(2);
    for (const event of ginaCalls) {
      expect(event.delegation).toMatch(
        new RegExp(`^member:${gina} agent:${event.actorId} client:[\\w-]+$`),
      );
      expect(event.outcome).toBe('ok');
    }
    // The refused call of the member without an IdP sign-in: its reason, and the chain.
    const adaCalls = calls.filter((e) => ofMember(ada).includes(e.actorId ?? ''));
    expect(adaCalls.length).toBeGreaterThanOrEqual(1);
    for (const event of adaCalls) {
      expect(event.reason).toBe('idp_session_required');
      expect(event.delegation).toMatch(new RegExp(`^member:${ada} agent:${event.actorId} client:`));
    }
    const opsAgent = agents.find((a) => a.name === 'ops-agent')!;
    const opsCalls = calls.filter((e) => e.actorId === opsAgent.id);
    expect(opsCalls.length).toBeGreaterThanOrEqual(1);
    for (const event of opsCalls) expect(event.delegation ?? null).toBeNull();
  });
});

describe('secrets and tokens', () => {
  it('appear in no log line, audit event, reply or command output, in any encoding', async () => {
    const token = await memberTokenThroughIdp('hal');
    await grant(ctx, { workspace: 'default', member: 'hal', connection: 'wx', scope: 'reads' });
    expect((await memberCall(token)).isError ?? false).toBe(false);
    const events = JSON.stringify(await gateway.running.gateway.store.audit.query({}));
    const secrets = [
      IDP_SECRET,
      UPSTREAM_SECRET,
      ...ours,
      ...upstream.exchanges.map((e) => e.subjectToken),
      ...upstream.received,
    ].filter((s) => s.length > 8 && s !== 'undefined');
    expect(secrets.length).toBeGreaterThan(6);
    for (const secret of secrets) {
      const forms = [
        secret,
        Buffer.from(secret).toString('base64'),
        Buffer.from(secret).toString('base64url'),
        encodeURIComponent(secret),
      ];
      for (const form of forms) {
        expect(logged).not.toContain(form);
        expect(events).not.toContain(form);
        expect(seen).not.toContain(form);
      }
    }
  });
});
