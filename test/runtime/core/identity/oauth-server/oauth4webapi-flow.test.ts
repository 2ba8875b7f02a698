/**
 * oauth4webapi (an independent, certified OAuth client) through the whole
 * flow against a running gateway: resource and server discovery, dynamic
 * registration, PKCE, the consent page, the code exchange (with `iss`
 * checked by the client), the access token validated as an RFC 9068 JWT by
 * oauth4webapi's own validator, `tools/list` and `tools/call` on `/mcp`, a
 * step-up challenge for a write, a narrowing refresh, revocation, and a
 * consent revoked by an operator.
 */
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../../../../runtime/core/operator/members.ts';
import { revokeConsent } from '../../../../../runtime/core/operator/oauth-consents.ts';
import { callTool, mcpClient } from '../../../../support/gateway.ts';
import { ACCEPT_BOTH, modern } from '../../../../support/mcp/raw-http.ts';
import { consent } from '../../../../support/oauth/consent-bot.ts';
import {
  MEMBER,
  type OAuthGateway,
  READ_ARGS,
  READ_TOOL,
  startOAuthGateway,
  WRITE_ARGS,
  WRITE_TOOL,
} from '../../../../support/oauth/oauth-gateway.ts';

const REDIRECT_URI = 'http://127.0.0.1:7777/callback';
const insecure = { [oauth.allowInsecureRequests]: true };

let running: OAuthGateway;
let as: oauth.AuthorizationServer;
let client: oauth.Client;
let resource: string;

beforeAll(async () => {
  running = await startOAuthGateway();
  const rs = await oauth.processResourceDiscoveryResponse(
    new URL(`${running.url}/mcp`),
    await oauth.resourceDiscoveryRequest(new URL(`${running.url}/mcp`), insecure),
  );
  resource = rs.resource;
  const issuer = new URL(rs.authorization_servers![0]!);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }),
  );
  client = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(
      as,
      {
        redirect_uris: [REDIRECT_URI],
        client_name: 'oauth4webapi test',
        token_endpoint_auth_method: 'none',
      },
      insecure,
    ),
  );
});
afterAll(() => running?.close());

/** Authorize with `scope`, approve on the consent page, exchange the code. */
async function signIn(scope: string): Promise<oauth.TokenEndpointResponse> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope,
    state,
    resource,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const { location } = await consent(url, MEMBER);
  const params = oauth.validateAuthResponse(as, client, location, state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    REDIRECT_URI,
    verifier,
    {
      ...insecure,
      additionalParameters: { resource },
    },
  );
  expect(response.headers.get('cache-control')).toBe('no-store');
  return oauth.processAuthorizationCodeResponse(as, client, response);
}

/** Signs in with `scope`, and has an operator grant the agent behind the consent (once). */
async function signInGranted(scope: string): Promise<oauth.TokenEndpointResponse> {
  const tokens = await signIn(scope);
  await running.grantConsentAgents();
  return tokens;
}

/** The consents of one member of the default workspace. */
async function consentsOf(member: string) {
  const store = running.gateway.running.gateway.store;
  const workspace = await store.workspaces.byName('default');
  const found = await store.oauth.members.byName(member);
  return (await store.oauth.consents.list(workspace!.id)).filter((c) => c.memberId === found!.id);
}

/** The claims of an access token, as oauth4webapi's validator reads them. */
function claimsOf(accessToken: string) {
  return oauth.validateJwtAccessToken(
    as,
    new Request(`${running.url}/mcp`, { headers: { authorization: `Bearer ${accessToken}` } }),
    resource,
    insecure,
  );
}

describe('oauth4webapi through the whole flow', () => {
  it('discovers, registers, signs in with consent and gets audience-bound tokens', async () => {
    expect(resource).toBe(`${running.url}/mcp`);
    expect(as.issuer).toBe(running.url);
    const tokens = await signIn('tools:read tools:write');
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(900);
    expect(tokens.scope).toBe('tools:read tools:write');
    expect(tokens.refresh_token).toMatch(/^pcr_/);
    const claims = await claimsOf(tokens.access_token);
    expect(claims).toMatchObject({
      iss: running.url,
      aud: resource,
      client_id: client.client_id,
      scope: 'tools:read tools:write',
    });
    expect(Object.keys(claims)).toEqual(
      expect.arrayContaining(['exp', 'iat', 'sub', 'jti', 'workspace', 'agent']),
    );
  });

  it('lists and calls tools on /mcp with the access token, once an operator grants the agent', async () => {
    const tokens = await signInGranted('tools:read tools:write');
    const [mine] = await consentsOf(MEMBER.member);
    const store = running.gateway.running.gateway.store;
    expect(await store.grants.forAgent(mine!.agentId)).toHaveLength(1);
    // The stateless wire, read raw: the SDK's client keeps only the fields it knows.
    const list = modern('tools/list');
    const listed = await fetch(`${running.url}/mcp`, {
      method: 'POST',
      headers: {
        ...list.headers,
        'content-type': 'application/json',
        accept: ACCEPT_BOTH,
        authorization: `Bearer ${tokens.access_token}`,
      },
      body: JSON.stringify(list.body),
    });
    const { tools } = (
      (await listed.json()) as {
        result: { tools: Array<{ name: string; securitySchemes?: unknown }> };
      }
    ).result;
    const schemesOf = (name: string) => tools.find((tool) => tool.name === name)?.securitySchemes;
    expect(schemesOf(READ_TOOL)).toEqual([{ type: 'oauth2', scopes: ['tools:read'] }]);
    expect(schemesOf(WRITE_TOOL)).toEqual([{ type: 'oauth2', scopes: ['tools:write'] }]);
    const mcp = await mcpClient(running.url, tokens.access_token);
    const result = await callTool(mcp, READ_TOOL, READ_ARGS);
    expect(result.isError).toBeFalsy();
    expect((await callTool(mcp, WRITE_TOOL, WRITE_ARGS)).isError).toBeFalsy();
    await mcp.close();
  });

  it('asks for a step-up with HTTP 403 and the challenge when the token lacks the scope a call needs, naming the ones it has too, on both wires', async () => {
    const readOnly = await signInGranted('tools:read');
    const challenge = `Bearer realm="portcullis", error="insufficient_scope", error_description="the access token does not carry the scope this action needs", scope="tools:read tools:write", resource_metadata="${running.url}/.well-known/oauth-protected-resource/mcp"`;
    // 2026-07-28, read raw: the status, the header and the one error shape.
    const call = modern('tools/call', { name: WRITE_TOOL, arguments: WRITE_ARGS });
    const reply = await fetch(`${running.url}/mcp`, {
      method: 'POST',
      headers: {
        ...call.headers,
        'content-type': 'application/json',
        accept: ACCEPT_BOTH,
        authorization: `Bearer ${readOnly.access_token}`,
      },
      body: JSON.stringify(call.body),
    });
    expect(reply.status).toBe(403);
    expect(reply.headers.get('www-authenticate')).toBe(challenge);
    const body = (await reply.json()) as { error: { data: { error: { code: string } } } };
    expect(body.error.data.error.code).toBe('insufficient_scope');
    // 2025-11-25 through the SDK's client, which has no way to sign in again here: it throws the 403.
    const mcp = await mcpClient(running.url, readOnly.access_token);
    await expect(mcp.callTool({ name: WRITE_TOOL, arguments: WRITE_ARGS })).rejects.toMatchObject({
      code: 403,
      message: expect.stringContaining('insufficient_scope'),
    });
    // The session outlives the refusal: a read on it still goes through.
    expect((await callTool(mcp, READ_TOOL, READ_ARGS)).isError).toBeFalsy();
    await mcp.close();
  });

  it('reuses the one agent of the member and client on every consent, which keeps every scope approved', async () => {
    const first = await signIn('tools:read tools:write');
    const second = await signIn('tools:read');
    const consents = await consentsOf(MEMBER.member);
    expect(consents).toHaveLength(1);
    // Approved first with read and write, then with read alone: the consent keeps both.
    expect(consents[0]!.scopes).toEqual(['tools:read', 'tools:write']);
    expect((await claimsOf(first.access_token)).agent).toBe(consents[0]!.agentId);
    expect((await claimsOf(second.access_token)).agent).toBe(consents[0]!.agentId);
    // No agent beside the one of each consent.
    const store = running.gateway.running.gateway.store;
    const workspace = await store.workspaces.byName('default');
    const oauthAgents = (await store.agents.list(workspace!.id)).filter(
      (a) => a.keyPrefix === 'oauth',
    );
    const everyConsent = await store.oauth.consents.list(workspace!.id);
    expect(oauthAgents.map((a) => a.id).sort()).toEqual(everyConsent.map((c) => c.agentId).sort());
  });

  it('gives a second person behind the same client_id a consent and an agent of their own', async () => {
    await signIn('tools:read');
    const gateway = running.gateway.running.gateway;
    await addMember(gateway.operator('cli'), {
      workspace: 'default',
      name: 'lin',
      password: 'another long password',
    });
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const { location } = await consent(url, { member: 'lin', password: 'another long password' });
    expect(location.searchParams.get('code')).toMatch(/^pco_/);
    const [ada] = await consentsOf(MEMBER.member);
    const lin = await consentsOf('lin');
    expect([ada!.clientId, ...lin.map((c) => c.clientId)]).toEqual([
      client.client_id,
      client.client_id,
    ]);
    expect(lin[0]!.agentId).not.toBe(ada!.agentId);
  });

  it('refreshes with a narrower scope, and refuses a wider one', async () => {
    const tokens = await signIn('tools:read tools:write');
    const narrowed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, {
        ...insecure,
        additionalParameters: { scope: 'tools:read' },
      }),
    );
    expect(narrowed.scope).toBe('tools:read');
    expect(narrowed.refresh_token).not.toBe(tokens.refresh_token);
    const wider = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      narrowed.refresh_token!,
      {
        ...insecure,
        additionalParameters: { scope: 'tools:read tools:destructive' },
      },
    );
    await expect(oauth.processRefreshTokenResponse(as, client, wider)).rejects.toMatchObject({
      error: 'invalid_scope',
    });
  });

  it('revokes: a revoked refresh token stops its family, the access token too', async () => {
    const fresh = await signIn('tools:read');
    const before = await mcpClient(running.url, fresh.access_token);
    await before.listTools();
    await before.close();
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, oauth.None(), fresh.refresh_token!, insecure),
    );
    await expect(mcpClient(running.url, fresh.access_token)).rejects.toThrow(/401|Unauthorized/);
    const again = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      fresh.refresh_token!,
      insecure,
    );
    await expect(oauth.processRefreshTokenResponse(as, client, again)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it("stops every token of a consent an operator revokes, on the token's next request", async () => {
    const fresh = await signInGranted('tools:read');
    const mcp = await mcpClient(running.url, fresh.access_token);
    await mcp.listTools();
    const gateway = running.gateway.running.gateway;
    const [mine] = await consentsOf(MEMBER.member);
    await revokeConsent(gateway.operator('cli'), { workspace: 'default', id: mine!.id });
    await expect(mcp.listTools()).rejects.toThrow(/401|Unauthorized/);
    const refreshed = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      fresh.refresh_token!,
      insecure,
    );
    await expect(oauth.processRefreshTokenResponse(as, client, refreshed)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    // Consenting again brings the same agent back to life, grants and all.
    const back = await signIn('tools:read');
    const again = await mcpClient(running.url, back.access_token);
    expect((await callTool(again, READ_TOOL, READ_ARGS)).isError).toBeFalsy();
    await again.close();
  });
});
