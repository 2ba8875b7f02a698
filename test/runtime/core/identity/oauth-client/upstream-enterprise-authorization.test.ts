/**
 * Enterprise-Managed Authorization towards an upstream (issue 35, SEP-990)
 * with real peers: oidc-provider as the company's IdP the members sign in
 * through, whose token endpoint also trades its ID tokens for ID-JAGs
 * (RFC 8693), oidc-provider as the upstream's authorization server, which
 * redeems ID-JAGs signed by the IdP for the gateway's client there (RFC 7523
 * jwt-bearer), an SDK v2 MCP server behind it that verifies each bearer, and
 * an SDK client through the gateway with the member's own token.
 *
 * The connection is set with `--id-jag acme --connect-as carol` (the draft
 * connected with carol's token); a member's call reaches the upstream with a
 * token for that member (never ours); a second call asks neither the IdP nor
 * the upstream's server for anything; the audit event names the chain; an
 * ID-JAG the upstream refuses is `upstream_jwt_bearer_failed`; no secret or
 * token is in the log, the audit log or a reply.
 */
import { Writable } from 'node:stream';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLog } from '../../../../../runtime/compose/log.ts';
import { changeActions } from '../../../../../runtime/core/operator/actions.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { addIdentityProvider } from '../../../../../runtime/core/operator/identity-providers.ts';
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
import { ID_JAG } from '../../../../support/identity/id-jag.ts';
import { memberTokensThroughIdp } from '../../../../support/oauth/member-tokens.ts';
import {
  type OAuthUpstream,
  startOAuthUpstream,
} from '../../../../support/remote/oauth-upstream.ts';
import { runPortcullisHere } from '../../../../support/run-cli.ts';

const IDP_SECRET = 'company-secret-acme-9b2d4f6a8c';
const UPSTREAM_SECRET = 'weather-client-secret-3e5a7c9b1d';
const UPSTREAM_CLIENT = 'portcullis-at-weather';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

let gateway: TestGateway;
let idp: CompanyIdp;
let upstream: OAuthUpstream;
let ctx: OperatorContext;
let logged = '';
let seen = '';
const ours: string[] = [];
let configured: AdminReply;
/** Whom the upstream refuses ID-JAGs for (the refusal test). */
const refused = new Set<string>();

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
  gateway = await startTestGateway({
    environment: {
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
      PORTCULLIS_IDP_ACME_SECRET: IDP_SECRET,
    },
    log,
  });
  // The upstream's issuer is known only once it runs: the IdP's audiences are read at each request.
  const audiences: Record<string, string> = {};
  idp = await startCompanyIdp({
    tenant: 'acme',
    redirectUri: `${gateway.url}/sign-in/idp/callback`,
    clientSecret: IDP_SECRET,
    people: {
      carol: { preferred_username: 'carol' },
      dave: { preferred_username: 'dave' },
      erin: { preferred_username: 'erin' },
    },
    idJags: audiences,
  });
  const idpKeys = createRemoteJWKSet(new URL(`${idp.issuer}/jwks`));
  upstream = await startOAuthUpstream({
    tenant: 'weather',
    registration: false,
    clients: [
      {
        client_id: UPSTREAM_CLIENT,
        client_secret: UPSTREAM_SECRET,
        grant_types: [JWT_BEARER],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    // Only the company IdP's ID-JAGs, for this server, its MCP endpoint and the presenting client.
    jwtBearer: {
      async verify(assertion, clientId) {
        const { payload } = await jwtVerify(assertion, idpKeys, {
          issuer: idp.issuer,
          audience: upstream.issuer,
          typ: ID_JAG,
        });
        if (payload.client_id !== clientId) throw new Error('another client');
        if (payload.resource !== upstream.mcp.url) throw new Error('another resource');
        if (refused.has(String(payload.sub))) throw new Error('refused');
        return { sub: String(payload.sub) };
      },
    },
  });
  audiences[upstream.issuer] = UPSTREAM_CLIENT;
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
  // carol signs in through the IdP first: her token connects the draft.
  ours.push(await memberTokenThroughIdp('carol'));
  const draft = await connectUrl(ctx, { workspace: 'default', url: upstream.mcp.url, name: 'wx' });
  expect(draft.next).toBe('sign_in');
  configured = await admin()('PUT', '/workspaces/default/connections/wx/auth', {
    clientId: UPSTREAM_CLIENT,
    clientSecret: UPSTREAM_SECRET,
    idJag: 'acme',
    connectAs: 'carol',
  });
  seen += configured.text;
  await changeActions(ctx, 'review', { workspace: 'default', connection: 'wx', all: true });
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

describe("a connection that redeems the member's ID-JAG", () => {
  it('is set through the admin API, and its draft connected with the named member’s token', async () => {
    expect(configured.status, configured.text).toBe(200);
    expect(configured.body).toMatchObject({
      connection: 'wx',
      onBehalfOf: { subjectToken: 'id_token', idJag: 'acme' },
      clientCredentials: null,
      connected: expect.anything(),
    });
    // The draft's tools came with a token the upstream's server issued for carol's ID-JAG.
    expect(upstream.jwtBearers.map((r) => r.outcome)).toContain('ok');
    expect(upstream.acceptedClaims[0]).toMatchObject({ sub: 'carol', aud: upstream.mcp.url });
  });

  it("carries a member's call with a token for that member, never ours, and a second call asks nothing", async () => {
    const token = await memberTokenThroughIdp('dave');
    await grant(ctx, { workspace: 'default', member: 'dave', connection: 'wx', scope: 'reads' });
    const [idJags, bearers, received] = [
      idp.idJagRequests.length,
      upstream.jwtBearers.length,
      upstream.received.length,
    ];
    const reply = await memberCall(token);
    expect(reply.isError ?? false, JSON.stringify(reply)).toBe(false);
    // One ID-JAG asked at the IdP for dave's ID token, with the upstream's server and resource.
    const asked = idp.idJagRequests.slice(idJags);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ audience: upstream.issuer, resource: upstream.mcp.url });
    const { payload } = await jwtVerify(
      asked[0]!.subjectToken,
      createRemoteJWKSet(new URL(`${idp.issuer}/jwks`)),
      { issuer: idp.issuer, audience: idp.clientId },
    );
    expect(payload.sub).toBe('dave');
    // Redeemed once, by the gateway's client at the upstream, as that very ID-JAG.
    const redeemed = upstream.jwtBearers.slice(bearers);
    expect(redeemed).toHaveLength(1);
    expect(redeemed[0]).toMatchObject({ clientId: UPSTREAM_CLIENT, outcome: 'ok' });
    expect(redeemed[0]!.assertion).toBe(asked[0]!.idJag);
    expect(decodeProtectedHeader(redeemed[0]!.assertion).typ).toBe(ID_JAG);
    expect(upstream.acceptedClaims.at(-1)).toMatchObject({ sub: 'dave', aud: upstream.mcp.url });
    for (const bearer of upstream.received.slice(received)) expect(ours).not.toContain(bearer);
    // A second call: the cached token, no request at the IdP or at the upstream's server.
    const idpRequests = idp.tokenRequests;
    const sentBefore = upstream.received.at(-1);
    const again = await memberCall(token);
    expect(again.isError ?? false).toBe(false);
    expect(idp.idJagRequests.length).toBe(idJags + 1);
    expect(idp.tokenRequests).toBe(idpRequests);
    expect(upstream.jwtBearers.length).toBe(bearers + 1);
    expect(upstream.received.at(-1)).toBe(sentBefore);
    // The audit events name the chain.
    const dave = await memberId('dave');
    const calls = (
      await gateway.running.gateway.store.audit.query({ action: 'wx__get_weather' })
    ).filter((e) => e.delegation?.startsWith(`member:${dave} `));
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const event of calls) {
      expect(event.delegation).toMatch(
        new RegExp(`^member:${dave} agent:${event.actorId} client:[\\w-]+$`),
      );
      expect(event.outcome).toBe('ok');
    }
  });

  it('is set by the command too, and a connectAs naming no member writes nothing', async () => {
    const store = gateway.running.gateway.store;
    const connection = await store.connections.byName(
      (await store.workspaces.byName('default'))!.id,
      'wx',
    );
    const before = (await store.remoteEndpoints.byConnection(connection!.id))?.oauth?.delegation;
    const wrong = await admin()('PUT', '/workspaces/default/connections/wx/auth', {
      idJag: 'off',
      connectAs: 'nobody',
    });
    seen += wrong.text;
    expect(wrong.status).toBe(404);
    expect(wrong.body).toMatchObject({ error: { code: 'not_found', field: 'connectAs' } });
    const after = (await store.remoteEndpoints.byConnection(connection!.id))?.oauth?.delegation;
    expect(after).toEqual(before);
    const set = await runPortcullisHere(['connection', 'auth', 'wx', '--id-jag', 'acme'], {
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
      PORTCULLIS_DATA_DIR: gateway.dataDir,
      PORTCULLIS_PUBLIC_URL: gateway.url,
    });
    seen += set.stdout + set.stderr;
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain("members' calls carry a token redeemed for an ID-JAG acme issues");
    expect((await store.remoteEndpoints.byConnection(connection!.id))?.oauth?.delegation).toEqual(
      before,
    );
    const listed = await runPortcullisHere(['connections'], {
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
      PORTCULLIS_DATA_DIR: gateway.dataDir,
    });
    seen += listed.stdout + listed.stderr;
    expect(listed.stdout).toContain("members' calls on their behalf (ID-JAG of acme)");
  });

  it('fails a call whose ID-JAG the upstream refuses with upstream_jwt_bearer_failed', async () => {
    const token = await memberTokenThroughIdp('erin');
    await grant(ctx, { workspace: 'default', member: 'erin', connection: 'wx', scope: 'reads' });
    refused.add('erin');
    const reply = await memberCall(token);
    expect(reply.isError).toBe(true);
    expect(reply.structuredContent).toMatchObject({
      error: { code: 'upstream_jwt_bearer_failed' },
    });
    expect(upstream.jwtBearers.at(-1)?.outcome).toBe('invalid_grant');
  });
});

describe('secrets and tokens', () => {
  it('appear in no log line, audit event or reply, in any encoding', async () => {
    const events = JSON.stringify(await gateway.running.gateway.store.audit.query({}));
    const secrets = [
      IDP_SECRET,
      UPSTREAM_SECRET,
      ...ours,
      ...idp.idJagRequests.flatMap((r) => [r.subjectToken, r.idJag ?? '']),
      ...upstream.received,
    ].filter((s) => s.length > 8 && s !== 'undefined');
    expect(secrets.length).toBeGreaterThan(6);
    for (const secret of secrets)
      for (const form of [
        secret,
        Buffer.from(secret).toString('base64'),
        Buffer.from(secret).toString('base64url'),
        encodeURIComponent(secret),
      ]) {
        expect(logged).not.toContain(form);
        expect(events).not.toContain(form);
        expect(seen).not.toContain(form);
      }
  });
});
