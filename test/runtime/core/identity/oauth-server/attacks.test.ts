/**
 * Every attack the authorization server must refuse, each with the error
 * RFC 6749 (or the gateway's table) says, against a running gateway. Forged
 * tokens are made with the gateway's own signing key where the attack needs
 * a valid signature, so only the property under test is wrong.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../../../generated/catalog-rules.ts';
import { signAccessToken } from '../../../../../runtime/core/identity/oauth-server/access-token.ts';
import { issueCode } from '../../../../../runtime/core/identity/oauth-server/authorization-codes.ts';
import { revokeAgent } from '../../../../../runtime/core/operator/agents.ts';
import { openConsentPage, postConsent } from '../../../../support/oauth/consent-bot.ts';
import {
  MEMBER,
  type OAuthGateway,
  startOAuthGateway,
} from '../../../../support/oauth/oauth-gateway.ts';
import {
  authorizeUrl,
  codeFor,
  exchange,
  mcpStatus,
  pkce,
  type RegisteredTestClient,
  registerClient,
  tokenRequest,
} from '../../../../support/oauth/raw-flow.ts';

let running: OAuthGateway;
let url: string;
let client: RegisteredTestClient;
let other: RegisteredTestClient;

beforeAll(async () => {
  running = await startOAuthGateway();
  url = running.url;
  client = await registerClient(url);
  // Another path: on a loopback address any port is the client's own (RFC 8252 §7.3).
  other = await registerClient(url, 'http://127.0.0.1:7999/other-callback');
});
afterAll(() => running?.close());

/** A fresh token pair for `client`. */
async function tokens(scope = 'tools:read'): Promise<{ access: string; refresh: string }> {
  const reply = await exchange(url, client, await codeFor(url, client, { scope }));
  expect(reply.status).toBe(200);
  return { access: String(reply.body.access_token), refresh: String(reply.body.refresh_token) };
}

/** The claims of a real token, to forge variations of. */
async function realClaims(): Promise<Record<string, unknown>> {
  const { access } = await tokens();
  return JSON.parse(Buffer.from(access.split('.')[1]!, 'base64url').toString());
}

describe('codes', () => {
  it('a code used twice: invalid_grant, and what its first use gave is revoked', async () => {
    const code = await codeFor(url, client);
    const first = await exchange(url, client, code);
    expect(first.status).toBe(200);
    expect(await mcpStatus(url, String(first.body.access_token))).toBe(200);
    const second = await exchange(url, client, code);
    expect(second).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await mcpStatus(url, String(first.body.access_token))).toBe(401);
    const refreshed = await tokenRequest(url, {
      grant_type: 'refresh_token',
      client_id: client.clientId,
      refresh_token: String(first.body.refresh_token),
    });
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  it.each([
    ['a PKCE verifier that does not match', { code_verifier: pkce().verifier }, 'invalid_grant'],
    ['no PKCE verifier', { code_verifier: undefined }, 'invalid_request'],
    ['another redirect_uri', { redirect_uri: 'http://127.0.0.1:1/other' }, 'invalid_grant'],
    ['another resource', { resource: `${'http://127.0.0.1:1'}/mcp` }, 'invalid_target'],
  ])('%s at the token endpoint: %s', async (_name, overrides, error) => {
    const reply = await exchange(url, client, await codeFor(url, client), overrides);
    expect(reply).toMatchObject({ status: 400, body: { error } });
    expect(JSON.stringify(reply.body)).not.toMatch(/pco_|pcr_|eyJ/);
  });

  it('a code used twice at once: one use gets tokens, and they are revoked all the same', async () => {
    // The replay lands between the first use taking the code and storing its
    // family: that use's write is held until the replay has been answered.
    const tokenRows = running.gateway.running.gateway.store.oauth.tokens;
    const start = tokenRows.start;
    let reached: () => void = () => {};
    const writing = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    tokenRows.start = async (family, first) => {
      reached();
      await held;
      return start.call(tokenRows, family, first);
    };
    try {
      const code = await codeFor(url, client);
      const firstUse = exchange(url, client, code);
      await writing;
      const replay = await exchange(url, client, code);
      tokenRows.start = start;
      release();
      const replies = [await firstUse, replay];
      expect(
        replies.filter((reply) => reply.body.error === 'invalid_grant').length,
      ).toBeGreaterThan(0);
      for (const reply of replies.filter((r) => r.status === 200)) {
        expect(await mcpStatus(url, String(reply.body.access_token))).toBe(401);
      }
    } finally {
      tokenRows.start = start;
      release();
    }
  });

  it('a client authenticating with a secret: 401 invalid_client, saying how it may (RFC 6749 §5.2)', async () => {
    const reply = await fetch(`${url}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${client.clientId}:secret`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x' }),
    });
    expect(reply.status).toBe(401);
    expect(((await reply.json()) as { error: string }).error).toBe('invalid_client');
    expect(reply.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
  });

  it("another client's code: invalid_grant", async () => {
    const code = await codeFor(url, client);
    const reply = await exchange(url, other, code, { redirect_uri: client.redirectUri });
    expect(reply).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('an expired code: invalid_grant', async () => {
    const gateway = running.gateway.running.gateway;
    const { verifier, challenge } = pkce();
    const code = await issueCode(gateway.state, {
      clientId: client.clientId,
      redirectUri: client.redirectUri,
      codeChallenge: challenge,
      resource: `${url}/mcp`,
      scopes: ['tools:read'],
      consentId: 'none',
      agentId: 'none',
      workspaceId: 'none',
      memberId: 'none',
      expiresAt: Date.now() - 1,
    });
    const reply = await exchange(url, client, { code, verifier });
    expect(reply).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'code: expired' },
    });
  });
});

describe('the authorize endpoint', () => {
  it.each([
    ['a redirect URI of another client', () => ({ redirect_uri: other.redirectUri })],
    [
      'an open redirect through redirect_uri',
      () => ({ redirect_uri: 'https://evil.example/steal' }),
    ],
    ['an unknown client', () => ({ client_id: 'pcc_nobody' })],
  ])('%s: a page, never a redirect', async (_name, params) => {
    const reply = await fetch(
      authorizeUrl(url, client, { code_challenge: pkce().challenge, ...params() }),
      {
        redirect: 'manual',
      },
    );
    expect(reply.status).toBe(400);
    expect(reply.headers.get('location')).toBeNull();
    expect(reply.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it.each([
    ['no PKCE challenge', { code_challenge: undefined }, 'invalid_request'],
    ['PKCE plain', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['a resource that is not ours', { resource: 'https://other.example/mcp' }, 'invalid_target'],
    ['an unknown scope', { scope: 'admin' }, 'invalid_scope'],
    ['a token response type', { response_type: 'token' }, 'unsupported_response_type'],
  ])('%s: back to the client with %s, state and iss', async (_name, params, error) => {
    const reply = await fetch(
      authorizeUrl(url, client, { code_challenge: pkce().challenge, ...params }),
      {
        redirect: 'manual',
      },
    );
    expect(reply.status).toBe(302);
    const location = new URL(reply.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(client.redirectUri);
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('state')).toBe('state-1');
    expect(location.searchParams.get('iss')).toBe(url);
  });

  it.each([
    ['without the cookie', { cookie: null }],
    ['with another CSRF token', { fields: { csrf: 'x'.repeat(43) } }],
  ])('refuses a consent form posted %s (CSRF): 403, no code', async (_name, overrides) => {
    const page = await openConsentPage(
      authorizeUrl(url, client, { code_challenge: pkce().challenge }),
    );
    if (!('fields' in page)) throw new Error('no consent page');
    const reply = await postConsent(url, page, MEMBER, overrides);
    expect(reply.status).toBe(403);
    expect(reply.headers.get('location')).toBeNull();
  });
});

describe('refresh tokens', () => {
  // Presented again after the grace window, the family is revoked: refresh-race.test.ts.
  it('presented again at once (a concurrent refresh): invalid_grant, and the family lives on', async () => {
    const { refresh } = await tokens();
    const rotated = await tokenRequest(url, {
      grant_type: 'refresh_token',
      client_id: client.clientId,
      refresh_token: refresh,
    });
    expect(rotated.status).toBe(200);
    const reused = await tokenRequest(url, {
      grant_type: 'refresh_token',
      client_id: client.clientId,
      refresh_token: refresh,
    });
    expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await mcpStatus(url, String(rotated.body.access_token))).toBe(200);
    const successor = await tokenRequest(url, {
      grant_type: 'refresh_token',
      client_id: client.clientId,
      refresh_token: String(rotated.body.refresh_token),
    });
    expect(successor.status).toBe(200);
  });

  it('presented by another client: invalid_grant, and the whole family is revoked', async () => {
    const { access, refresh } = await tokens();
    const stolen = await tokenRequest(url, {
      grant_type: 'refresh_token',
      client_id: other.clientId,
      refresh_token: refresh,
    });
    expect(stolen).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const own = await tokenRequest(url, {
      grant_type: 'refresh_token',
      client_id: client.clientId,
      refresh_token: refresh,
    });
    expect(own.body.error).toBe('invalid_grant');
    expect(await mcpStatus(url, access)).toBe(401);
  });

  it('for an agent an operator revoked: invalid_grant, not tokens /mcp would refuse', async () => {
    const own = await registerClient(url);
    const { body } = await exchange(url, own, await codeFor(url, own));
    const gateway = running.gateway.running.gateway;
    const workspace = await gateway.store.workspaces.byName('default');
    const consent = (await gateway.store.oauth.consents.list(workspace!.id)).find(
      (c) => c.clientId === own.clientId,
    );
    const agent = await gateway.store.agents.byId(workspace!.id, consent!.agentId);
    await revokeAgent(gateway.operator('cli'), { workspace: 'default', agent: agent!.name });
    const reply = await tokenRequest(url, {
      grant_type: 'refresh_token',
      client_id: own.clientId,
      refresh_token: String(body.refresh_token),
    });
    expect(reply).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('of a family revoked long ago are deleted when the next code is exchanged', async () => {
    const store = running.gateway.running.gateway.store;
    const { refresh } = await tokens();
    const found = await store.oauth.tokens.byHash(sha256Hex(refresh));
    await store.oauth.tokens.revokeFamily(found!.family.id, '2020-01-01T00:00:00.000Z');
    await tokens();
    expect(await store.oauth.tokens.family(found!.family.id)).toBeUndefined();
    expect(await store.oauth.tokens.byHash(sha256Hex(refresh))).toBeUndefined();
  });

  it('asked for a wider scope: invalid_scope', async () => {
    const { refresh } = await tokens('tools:read');
    const reply = await tokenRequest(url, {
      grant_type: 'refresh_token',
      client_id: client.clientId,
      refresh_token: refresh,
      scope: 'tools:read tools:write',
    });
    expect(reply).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
  });
});

describe('access tokens on /mcp', () => {
  const keyOf = () => running.gateway.running.gateway.oauth.keys.current;

  it('a real one is accepted', async () => {
    expect(await mcpStatus(url, (await tokens()).access)).toBe(200);
  });

  it('alg none: 401', async () => {
    const claims = await realClaims();
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString(
      'base64url',
    );
    const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
    expect(await mcpStatus(url, `${header}.${body}.`)).toBe(401);
  });

  it('an unknown kid: 401', async () => {
    const claims = await realClaims();
    const { privateKey } = await import('node:crypto').then((c) =>
      c.generateKeyPairSync('ec', { namedCurve: 'P-256' }),
    );
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'not-ours', typ: 'at+jwt' })
      .sign(privateKey);
    expect(await mcpStatus(url, forged)).toBe(401);
  });

  it('a tampered signature or payload: 401', async () => {
    const { access } = await tokens();
    const [h, p, s] = access.split('.');
    const flipped = `${s!.slice(0, -2)}${s!.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(await mcpStatus(url, `${h}.${p}.${flipped}`)).toBe(401);
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const widened = Buffer.from(
      JSON.stringify({ ...claims, scope: 'tools:read tools:destructive' }),
    ).toString('base64url');
    expect(await mcpStatus(url, `${h}.${widened}.${s}`)).toBe(401);
  });

  it('an expired one: 401', async () => {
    const claims = await realClaims();
    const past = await signAccessToken(
      subjectOf(claims),
      keyOf(),
      new Date(Date.now() - 16 * 60_000),
    );
    expect(await mcpStatus(url, past.token)).toBe(401);
  });

  it('one for another resource: 401', async () => {
    const claims = await realClaims();
    const elsewhere = await signAccessToken(
      { ...subjectOf(claims), resource: `${url}/mcp/c/unikraft` },
      keyOf(),
      new Date(),
    );
    expect(await mcpStatus(url, elsewhere.token)).toBe(401);
  });

  it("one naming another workspace than its agent's: 401", async () => {
    const gateway = running.gateway.running.gateway;
    await gateway.store.workspaces.create({
      id: 'ws-other',
      name: 'other',
      createdAt: new Date().toISOString(),
      toolsMode: 'direct',
    });
    const claims = await realClaims();
    const crossed = await signAccessToken(
      { ...subjectOf(claims), workspaceId: 'ws-other' },
      keyOf(),
      new Date(),
    );
    expect(await mcpStatus(url, crossed.token)).toBe(401);
  });
});

function subjectOf(claims: Record<string, unknown>) {
  return {
    issuer: String(claims.iss),
    resource: String(claims.aud),
    memberId: String(claims.sub),
    clientId: String(claims.client_id),
    scopes: String(claims.scope).split(' '),
    workspaceId: String(claims.workspace),
    agentId: String(claims.agent),
    consentId: String(claims.consent),
    familyId: String(claims.family),
  };
}
