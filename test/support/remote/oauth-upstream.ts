/**
 * A real upstream that wants a sign-in, on loopback: `oidc-provider`
 * (panva's certified OpenID provider) as the authorization server, at an
 * issuer with a path (`/tenant/<name>`), with dynamic client registration,
 * PKCE, resource indicators (the access token is a JWT whose audience is the
 * MCP endpoint), refresh-token rotation with reuse detection, revocation
 * and `iss` in the authorization response; in front of an SDK v2 MCP server
 * that publishes its protected-resource metadata, answers 401 with the
 * `resource_metadata` hint, and verifies every access token (signature,
 * issuer, audience, expiry) with jose. Counts what happened at the
 * authorization server, so tests can assert on it there.
 */
import type { IncomingMessage } from 'node:http';
import express from 'express';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import Provider, { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { startUpstream, type Upstream, type UpstreamKind } from './upstream-servers.ts';

export interface OAuthUpstreamOptions {
  /** The issuer's path segment: `/tenant/<tenant>`. Default `a`. */
  tenant?: string;
  kind?: UpstreamKind;
  /** Scopes the protected resource names. Default `mcp:tools`. */
  scopes?: string[];
  /** A tool whose calls need one more scope than the resource names (403 insufficient_scope without it). */
  stepUp?: { tool: string; scope: string };
  /** Clients registered by hand (preregistered), as oidc-provider takes them. */
  clients?: Array<Record<string, unknown>>;
  /** Dynamic client registration offered. Default true (false: clients must be entered by hand). */
  registration?: boolean;
  /** The client credentials grant offered (its tokens for the MCP resource, as JWTs). */
  clientCredentials?: boolean;
  /**
   * The RFC 8693 token exchange grant offered: `verify` checks the subject
   * token (throws when it is not one to exchange) and answers whose it is.
   */
  tokenExchange?: {
    verify(subjectToken: string, subjectTokenType: string): Promise<{ sub: string }>;
  };
  /**
   * The RFC 7523 JWT bearer grant offered (an ID-JAG as the assertion):
   * `verify` checks the assertion for the authenticated client (throws when
   * it is not one to redeem) and answers whose it is.
   */
  jwtBearer?: {
    verify(assertion: string, clientId: string): Promise<{ sub: string }>;
  };
}

/** One JWT bearer grant as the authorization server received it. */
export interface ReceivedJwtBearer {
  assertion: string;
  clientId: string;
  resource: string | undefined;
  outcome: 'ok' | string;
}

/** One token exchange request as the authorization server received it. */
export interface ReceivedExchange {
  subjectToken: string;
  subjectTokenType: string;
  audience: string | undefined;
  resource: string | undefined;
  outcome: 'ok' | string;
}

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

export interface OAuthUpstream {
  issuer: string;
  mcp: Upstream;
  /** Refresh-token grants the authorization server answered, and how. */
  refreshes: Array<'ok' | string>;
  /** Clients registered by DCR. */
  registrations: string[];
  /** Revocation requests that reached the server. */
  revocations: number;
  /** Access tokens the MCP server accepted (their `jti`s), in order. */
  accepted: string[];
  /** Every bearer token the MCP server was sent, accepted or not, in order. */
  received: string[];
  /** The claims of each token the MCP server accepted, in order. */
  acceptedClaims: Array<Record<string, unknown>>;
  /** Token exchange requests, in order. */
  exchanges: ReceivedExchange[];
  /** JWT bearer grants, in order. */
  jwtBearers: ReceivedJwtBearer[];
  /** Client credentials grants answered. */
  clientCredentialGrants: number;
  /** The lifetime in seconds of the tokens exchanges and client credentials issue from now on. Default 3600. */
  issuedTtl: number;
  provider: Provider;
  /**
   * Holds every token request from now on until `release()` (a refresh in
   * flight, made to last): `arrived(n)` resolves once n have arrived.
   */
  holdTokenRequests(): { arrived(count: number): Promise<void>; release(): void };
  /** The MCP server moves to another authorization server: its metadata names it, and only its tokens pass. */
  moveTo(other: OAuthUpstream): void;
  /** The MCP server is down (every MCP request answers 503) until called with false. */
  setDown(down: boolean): void;
  close(): Promise<void>;
}

export async function startOAuthUpstream(
  options: OAuthUpstreamOptions = {},
): Promise<OAuthUpstream> {
  const tenant = options.tenant ?? 'a';
  const scopes = options.scopes ?? ['mcp:tools'];
  const app = express();
  const http = await new Promise<import('node:http').Server>((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
  const port = (http.address() as { port: number }).port;
  const issuer = `http://127.0.0.1:${port}/tenant/${tenant}`;
  let mcpUrl = '';
  const state = { issuedTtl: 3600 };
  const provider = new Provider(issuer, {
    clients: (options.clients ?? []) as never[],
    cookies: { keys: ['portcullis-test-cookie-key'] },
    scopes: [
      'openid',
      'offline_access',
      ...scopes,
      ...(options.stepUp ? [options.stepUp.scope] : []),
    ],
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: options.registration ?? true },
      clientCredentials: { enabled: options.clientCredentials ?? false },
      revocation: { enabled: true, allowedPolicy: async () => true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => mcpUrl,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, resourceIndicator) => ({
          scope: [...scopes, ...(options.stepUp ? [options.stepUp.scope] : [])].join(' '),
          audience: resourceIndicator,
          accessTokenTTL: state.issuedTtl,
          accessTokenFormat: 'jwt',
        }),
      },
    },
    // Every code grant gets a refresh token (without asking for offline_access and its prompt).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => true,
    pkce: { required: () => true },
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    ttl: {
      // The resource server's lifetime (`issuedTtl`, 3600 unless a test shortens it).
      AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? 3600,
      ClientCredentials: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? 3600,
      Grant: 3600,
      Interaction: 600,
      RefreshToken: 86_400,
      Session: 3600,
    },
  });
  const exchanges: ReceivedExchange[] = [];
  const jwtBearers: ReceivedJwtBearer[] = [];
  let clientCredentialGrants = 0;
  /** An access token for `sub`, a JWT whose audience is the resource (default the MCP endpoint). */
  const issue = async (
    ctx: KoaContextWithOIDC,
    sub: string,
    asked: string | undefined,
    grantId: string,
  ) => {
    const resource = asked ?? mcpUrl;
    const token = new provider.AccessToken({
      accountId: sub,
      client: ctx.oidc.client!,
      grantId,
      gty: 'token_exchange',
      scope: scopes.join(' '),
    });
    token.resourceServer = new provider.ResourceServer(resource, {
      scope: scopes.join(' '),
      audience: resource,
      accessTokenTTL: state.issuedTtl,
      accessTokenFormat: 'jwt',
    });
    const value = await token.save();
    return {
      access_token: value,
      token_type: 'Bearer',
      expires_in: token.expiration,
      scope: scopes.join(' '),
    };
  };
  if (options.jwtBearer) {
    const { verify } = options.jwtBearer;
    provider.registerGrantType(
      JWT_BEARER,
      async (ctx) => {
        const params = ctx.oidc.params as Record<string, string | undefined>;
        const received: ReceivedJwtBearer = {
          assertion: params.assertion ?? '',
          clientId: ctx.oidc.client!.clientId,
          resource: params.resource,
          outcome: 'ok',
        };
        jwtBearers.push(received);
        let sub: string;
        try {
          ({ sub } = await verify(received.assertion, received.clientId));
        } catch {
          received.outcome = 'invalid_grant';
          throw new errors.InvalidGrant('the assertion is not one this server redeems');
        }
        ctx.body = await issue(ctx, sub, received.resource, `jwt-bearer-${jwtBearers.length}`);
      },
      ['assertion', 'resource', 'scope'],
    );
  }
  provider.on('grant.success', (ctx) => {
    if (grantType(ctx) === 'client_credentials') clientCredentialGrants++;
  });
  if (options.tokenExchange) {
    const { verify } = options.tokenExchange;
    provider.registerGrantType(
      TOKEN_EXCHANGE,
      async (ctx) => {
        const params = ctx.oidc.params as Record<string, string | undefined>;
        const received: ReceivedExchange = {
          subjectToken: params.subject_token ?? '',
          subjectTokenType: params.subject_token_type ?? '',
          audience: params.audience,
          resource: params.resource,
          outcome: 'ok',
        };
        exchanges.push(received);
        let sub: string;
        try {
          ({ sub } = await verify(received.subjectToken, received.subjectTokenType));
        } catch {
          received.outcome = 'invalid_grant';
          throw new errors.InvalidGrant('the subject token is not one this server exchanges');
        }
        ctx.body = {
          ...(await issue(ctx, sub, received.resource, `exchange-${exchanges.length}`)),
          issued_token_type: ACCESS_TOKEN_TYPE,
        };
      },
      [
        'subject_token',
        'subject_token_type',
        'requested_token_type',
        'audience',
        'resource',
        'scope',
      ],
    );
  }
  const refreshes: OAuthUpstream['refreshes'] = [];
  const registrations: string[] = [];
  let revocations = 0;
  const grantType = (ctx: KoaContextWithOIDC) =>
    (ctx.oidc?.params as { grant_type?: string } | undefined)?.grant_type;
  provider.on('grant.success', (ctx) => {
    if (grantType(ctx) === 'refresh_token') refreshes.push('ok');
  });
  provider.on('grant.error', (ctx, error) => {
    if (grantType(ctx) === 'refresh_token')
      refreshes.push((error as { error?: string }).error ?? 'error');
  });
  provider.on('registration_create.success', (_ctx, client) => registrations.push(client.clientId));
  app.use((req, _res, next) => {
    if (req.method === 'POST' && req.path.endsWith('/token/revocation')) revocations++;
    next();
  });
  let hold: { gate: Promise<void>; seen: number; waiters: Array<[number, () => void]> } | undefined;
  provider.use(async (ctx, next) => {
    if (hold && ctx.method === 'POST' && ctx.path === '/token') {
      hold.seen++;
      for (const [count, resolve] of hold.waiters) if (hold.seen >= count) resolve();
      await hold.gate;
    }
    await next();
  });
  app.use(`/tenant/${tenant}`, provider.callback());

  let trusted = { issuer, jwks: createRemoteJWKSet(new URL(`${issuer}/jwks`)) };
  const accepted: string[] = [];
  const received: string[] = [];
  const acceptedClaims: Array<Record<string, unknown>> = [];
  let down = false;
  const guard = async (req: IncomingMessage, body: Buffer) => {
    const path = (req.url ?? '').split('?')[0];
    if (down && path === '/mcp') return { status: 503, body: '{"error":"unavailable"}' };
    const metadataUrl = `${new URL(mcpUrl).origin}/.well-known/oauth-protected-resource/mcp`;
    if (path?.startsWith('/.well-known/oauth-protected-resource'))
      return {
        status: 200,
        body: JSON.stringify({
          resource: mcpUrl,
          authorization_servers: [trusted.issuer],
          scopes_supported: scopes,
          bearer_methods_supported: ['header'],
        }),
      };
    const challenge = `Bearer resource_metadata="${metadataUrl}"`;
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (token) received.push(token);
    if (!token)
      return {
        status: 401,
        headers: { 'www-authenticate': challenge },
        body: '{"error":"unauthorized"}',
      };
    try {
      const { payload } = await jwtVerify(token, trusted.jwks, {
        issuer: trusted.issuer,
        audience: mcpUrl,
      });
      accepted.push(String(payload.jti));
      acceptedClaims.push(payload);
      const step = options.stepUp;
      if (
        step &&
        !String(payload.scope ?? '')
          .split(' ')
          .includes(step.scope)
      ) {
        const call = JSON.parse(body.toString('utf8') || '{}') as { params?: { name?: string } };
        if (call.params?.name === step.tool)
          return {
            status: 403,
            headers: {
              'www-authenticate': `Bearer error="insufficient_scope", scope="${[...scopes, step.scope].join(' ')}", resource_metadata="${metadataUrl}"`,
            },
            body: '{"error":"insufficient_scope"}',
          };
      }
      return undefined;
    } catch {
      return {
        status: 401,
        headers: { 'www-authenticate': `${challenge}, error="invalid_token"` },
        body: '{"error":"invalid_token"}',
      };
    }
  };
  const mcp = await startUpstream(options.kind ?? 'modern', { guard });
  mcpUrl = mcp.url;
  return {
    issuer,
    mcp,
    refreshes,
    registrations,
    get revocations() {
      return revocations;
    },
    accepted,
    received,
    acceptedClaims,
    exchanges,
    jwtBearers,
    get clientCredentialGrants() {
      return clientCredentialGrants;
    },
    get issuedTtl() {
      return state.issuedTtl;
    },
    set issuedTtl(value: number) {
      state.issuedTtl = value;
    },
    provider,
    holdTokenRequests() {
      let open = () => {};
      const current = {
        gate: new Promise<void>((resolve) => {
          open = resolve;
        }),
        seen: 0,
        waiters: [] as Array<[number, () => void]>,
      };
      hold = current;
      return {
        arrived: (count) =>
          new Promise<void>((resolve) => {
            if (current.seen >= count) resolve();
            else current.waiters.push([count, resolve]);
          }),
        release: () => {
          if (hold === current) hold = undefined;
          open();
        },
      };
    },
    setDown(value) {
      down = value;
    },
    moveTo(other) {
      trusted = { issuer: other.issuer, jwks: createRemoteJWKSet(new URL(`${other.issuer}/jwks`)) };
    },
    async close() {
      await mcp.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
