/**
 * The authorization code flow against a real loopback authorization server:
 * the authorization URL (PKCE S256, state, resource, scope), the callback's
 * RFC 9207 `iss` and `state` rules (a refused code is never exchanged), the
 * code exchange, refresh with rotation, and revocation. Secrets planted as
 * canaries (the client secret, the tokens, the code) appear in no error.
 */
import { describe, expect, it } from 'vitest';
import { type GatewayError, publicError } from '../../../../../runtime/core/base/errors.ts';
import {
  type ClientMaterial,
  finishSignIn,
  refreshTokens,
  revokeTokens,
  type SignInStart,
  startSignIn,
  type TokenSet,
} from '../../../../../runtime/core/identity/oauth-client/upstream-oauth.ts';
import {
  callbackQuery,
  discoverAndObtain,
  engineContext,
  peerPerTest,
  REDIRECT_URI,
} from '../../../../support/upstream-oauth/engine-harness.ts';
import type { OAuthPeer, Route } from '../../../../support/upstream-oauth/oauth-peer.ts';

const CANARY_SECRET = 'CANARY-client-secret-7f3a';
const CANARY_CODE = 'CANARY-code-19bd';
const CANARY_REFRESH = 'CANARY-refresh-55e1';

const peers = peerPerTest();
let peer: OAuthPeer | undefined;

/** A client with a secret, entered by the operator (the server has no DCR). */
const withSecret = { operatorClient: { clientId: 'operator-client', clientSecret: CANARY_SECRET } };
const noRegistration: Record<string, Route> = {
  'GET /.well-known/oauth-authorization-server/as': (_request, base) => ({
    json: {
      issuer: `${base}/as`,
      authorization_endpoint: `${base}/as/authorize`,
      token_endpoint: `${base}/as/token`,
      revocation_endpoint: `${base}/as/revoke`,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
    },
  }),
};

/** Every way a secret could hide in an error: its text, as sent in a form, in Base64 (Basic). */
function expectNoCanary(error: unknown): void {
  const shown = [
    (error as Error).message,
    (error as Error).stack ?? '',
    JSON.stringify(publicError(error)),
    JSON.stringify((error as GatewayError).detail ?? {}),
    String((error as Error).cause ?? ''),
  ].join('\n');
  for (const canary of [CANARY_SECRET, CANARY_CODE, CANARY_REFRESH]) {
    expect(shown).not.toContain(canary);
    expect(shown).not.toContain(encodeURIComponent(canary));
    expect(shown).not.toContain(Buffer.from(canary).toString('base64').slice(0, 16));
  }
  expect(shown).not.toContain(Buffer.from(`operator-client:${CANARY_SECRET}`).toString('base64'));
}

async function started(
  routes: Record<string, Route> = {},
  sendResource = true,
): Promise<{ start: SignInStart; client: ClientMaterial }> {
  peer = await peers.start({ ...noRegistration, ...routes });
  const context = engineContext();
  const { discovery, client } = await discoverAndObtain(peer, context, withSecret);
  const start = await startSignIn(
    discovery,
    client,
    { redirectUri: REDIRECT_URI, sendResource },
    context,
  );
  return { start, client };
}

/** The callback a well-behaved server sends (the code, the state, its iss), handed to finishSignIn. */
function exchanged(start: SignInStart, client: ClientMaterial) {
  const query = callbackQuery({ code: CANARY_CODE, state: start.pending.state, iss: peer!.issuer });
  return finishSignIn(start.pending, query, client, engineContext());
}

describe('startSignIn', () => {
  it('asks for the code with PKCE S256, state, the scope and the resource', async () => {
    const { start } = await started();
    const query = start.authorizationUrl.searchParams;
    expect(start.authorizationUrl.origin + start.authorizationUrl.pathname).toBe(
      `${peer!.base}/as/authorize`,
    );
    expect(start.host).toBe(new URL(peer!.base).host);
    expect(Object.fromEntries(query)).toMatchObject({
      response_type: 'code',
      client_id: 'operator-client',
      redirect_uri: REDIRECT_URI,
      code_challenge_method: 'S256',
      state: start.pending.state,
      scope: 'files:read',
      resource: `${peer!.base}/mcp`,
    });
    expect(query.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(start.pending).toMatchObject({
      expectedIssuer: peer!.issuer,
      resource: `${peer!.base}/mcp`,
      sendResource: true,
      scopes: ['files:read'],
      clientId: 'operator-client',
    });
    expect(start.pending.codeVerifier).not.toBe(query.get('code_challenge'));
  });

  it('leaves resource out when the connection switched it off', async () => {
    const { start } = await started({}, false);
    expect(start.authorizationUrl.searchParams.has('resource')).toBe(false);
  });
});

describe('finishSignIn', () => {
  it('exchanges the code with the verifier, the resource and Basic client authentication', async () => {
    const { start, client } = await started();
    const tokens = await finishSignIn(
      start.pending,
      callbackQuery({ code: CANARY_CODE, state: start.pending.state, iss: peer!.issuer }),
      client,
      engineContext(),
    );
    expect(tokens).toMatchObject({
      accessToken: 'access-1',
      refreshToken: 'refresh-1',
      scopes: ['files:read'],
      tokenType: 'bearer',
    });
    const [exchange] = peer!.hits('/as/token');
    expect(Object.fromEntries(exchange!.form)).toMatchObject({
      grant_type: 'authorization_code',
      code: CANARY_CODE,
      code_verifier: start.pending.codeVerifier,
      redirect_uri: REDIRECT_URI,
      resource: `${peer!.base}/mcp`,
    });
    expect(exchange!.headers.authorization).toBe(
      `Basic ${Buffer.from(`operator-client:${CANARY_SECRET}`).toString('base64')}`,
    );
  });

  const refused: [
    string,
    {
      query: (state: string, issuer: string) => Record<string, string | undefined>;
      code: string;
      expired?: boolean;
    },
  ][] = [
    [
      'an iss of another issuer',
      {
        query: (state) => ({ code: CANARY_CODE, state, iss: 'https://evil.example.com' }),
        code: 'oauth_iss_mismatch',
      },
    ],
    [
      'an iss that only matches after normalization',
      {
        query: (state, issuer) => ({ code: CANARY_CODE, state, iss: `${issuer}/` }),
        code: 'oauth_iss_mismatch',
      },
    ],
    [
      'no iss from a server that promised one',
      { query: (state) => ({ code: CANARY_CODE, state }), code: 'oauth_iss_mismatch' },
    ],
    [
      'another state',
      {
        query: (_state, issuer) => ({ code: CANARY_CODE, state: 'forged', iss: issuer }),
        code: 'oauth_state_invalid',
      },
    ],
    [
      'no state',
      {
        query: (_state, issuer) => ({ code: CANARY_CODE, iss: issuer }),
        code: 'oauth_state_invalid',
      },
    ],
    [
      'an expired sign-in',
      {
        query: (state, issuer) => ({ code: CANARY_CODE, state, iss: issuer }),
        code: 'oauth_state_invalid',
        expired: true,
      },
    ],
    [
      'an error reply, its description dropped',
      {
        query: (state, issuer) => ({
          error: 'access_denied',
          error_description: `nope ${CANARY_SECRET}`,
          state,
          iss: issuer,
        }),
        code: 'oauth_authorization_denied',
      },
    ],
  ];

  it.each(refused)(
    'refuses %s without exchanging the code',
    async (_name, { query, code, expired }) => {
      const { start, client } = await started();
      const pending = expired
        ? { ...start.pending, expiresAt: new Date(Date.now() - 1).toISOString() }
        : start.pending;
      const error = await finishSignIn(
        pending,
        callbackQuery(query(pending.state, peer!.issuer)),
        client,
        engineContext(),
      ).catch((e) => e);
      expect((error as GatewayError).code).toBe(code);
      expect(peer!.hits('/as/token')).toHaveLength(0);
      expectNoCanary(error);
    },
  );

  it('offers the resource switch when the token endpoint refuses resource', async () => {
    const { start, client } = await started({
      'POST /as/token': () => ({
        status: 400,
        json: { error: 'invalid_target', error_description: `bad ${CANARY_CODE}` },
      }),
    });
    const error = await exchanged(start, client).catch((e) => e);
    expect(error).toMatchObject({ code: 'oauth_resource_refused', field: 'send_resource' });
    expect((error as GatewayError).detail).toMatchObject({
      oauthError: 'invalid_target',
      switch: 'send_resource',
    });
    expectNoCanary(error);
  });

  it('reduces an error reply that echoes the secret and the code to its RFC code', async () => {
    const { start, client } = await started({
      'POST /as/token': (request) => ({
        status: 401,
        headers: { 'www-authenticate': `Basic realm="${request.headers.authorization}"` },
        json: {
          error: 'invalid_client',
          error_description: `${request.body} ${request.headers.authorization}`,
          error_uri: `https://as.example.com/?${request.body}`,
        },
      }),
    });
    const error = await exchanged(start, client).catch((e) => e);
    expect(error).toMatchObject({
      code: 'oauth_token_failed',
      detail: { oauthError: 'invalid_client', status: 401 },
    });
    expectNoCanary(error);
  });
});

describe('refreshTokens and revokeTokens', () => {
  const tokens: TokenSet = {
    accessToken: 'access-0',
    refreshToken: CANARY_REFRESH,
    scopes: ['files:read'],
    tokenType: 'bearer',
    obtainedAt: new Date().toISOString(),
  };

  async function grantFor(routes: Record<string, Route> = {}, sendResource = true) {
    peer = await peers.start({ ...noRegistration, ...routes });
    const context = engineContext();
    const { discovery, client } = await discoverAndObtain(peer, context, withSecret);
    return {
      grant: { metadata: discovery.metadata, client, resource: discovery.resource, sendResource },
      context,
    };
  }

  it('refreshes with the resource and keeps the rotated refresh token', async () => {
    const { grant, context } = await grantFor({
      'POST /as/token': () => ({
        json: {
          access_token: 'access-2',
          refresh_token: 'refresh-2',
          token_type: 'bearer',
          expires_in: 60,
        },
      }),
    });
    const next = await refreshTokens(grant, tokens, context);
    expect(next).toMatchObject({
      accessToken: 'access-2',
      refreshToken: 'refresh-2',
      scopes: ['files:read'],
    });
    expect(Object.fromEntries(peer!.hits('/as/token')[0]!.form)).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: CANARY_REFRESH,
      resource: `${peer!.base}/mcp`,
    });
  });

  it('keeps the old refresh token when none comes back, and sends no resource when switched off', async () => {
    const { grant, context } = await grantFor(
      {
        'POST /as/token': () => ({ json: { access_token: 'access-2', token_type: 'Bearer' } }),
      },
      false,
    );
    const next = await refreshTokens(grant, tokens, context);
    expect(next.refreshToken).toBe(CANARY_REFRESH);
    expect(peer!.hits('/as/token')[0]!.form.has('resource')).toBe(false);
  });

  it('puts a rotated-away refresh token in sign_in_required, once, without leaking it', async () => {
    const { grant, context } = await grantFor({
      'POST /as/token': (request) => ({
        status: 400,
        json: {
          error: 'invalid_grant',
          error_description: `reused ${request.form.get('refresh_token')}`,
        },
      }),
    });
    const error = await refreshTokens(grant, tokens, context).catch((e) => e);
    expect(error).toMatchObject({
      code: 'oauth_sign_in_required',
      detail: { oauthError: 'invalid_grant' },
    });
    expect(peer!.hits('/as/token')).toHaveLength(1);
    expectNoCanary(error);
  });

  it('refuses a token endpoint on a private address under the production policy, sending nothing', async () => {
    const { grant } = await grantFor();
    const privateGrant = {
      ...grant,
      metadata: {
        ...grant.metadata,
        token_endpoint: `${peer!.base.replace('http:', 'https:')}/as/token`,
      },
    };
    const before = peer!.requests.length;
    const error = await refreshTokens(privateGrant, tokens, engineContext(false)).catch((e) => e);
    expect((error as GatewayError).code).toBe('upstream_address_refused');
    expect(peer!.requests.length).toBe(before);
    expectNoCanary(error);
  });

  it('revokes the refresh token, then the access token', async () => {
    const { grant, context } = await grantFor();
    expect(await revokeTokens(grant, tokens, context)).toEqual({ revoked: true });
    expect(
      peer!.hits('/as/revoke').map((r) => [r.form.get('token'), r.form.get('token_type_hint')]),
    ).toEqual([
      [CANARY_REFRESH, 'refresh_token'],
      ['access-0', 'access_token'],
    ]);
  });
});
