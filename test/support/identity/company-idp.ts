/**
 * The company's identity provider for the enterprise identity tests:
 * `oidc-provider` (panva's certified OpenID provider) on loopback, at an
 * issuer with a path (`/idp/<tenant>`), with one confidential client
 * (client_secret_basic, PKCE required) registered for the gateway's
 * callback, people whose claims a test sets (`sub`, `preferred_username`,
 * `email`, `groups`) and can change between sign-ins, and signing keys the
 * test knows, so an attack can hand the gateway an ID token that the real
 * token endpoint answered with but that says something else (another
 * audience, no signature, another key's signature). With `idJags`, its
 * token endpoint also issues ID-JAGs (Enterprise-Managed Authorization):
 * RFC 8693 token exchange of one of its own ID tokens for its client, for an
 * ID-JAG signed with its key (`typ` oauth-id-jag+jwt) naming the audience
 * and resource asked for and the client at that audience `idJags` says.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import express from 'express';
import {
  decodeJwt,
  exportJWK,
  generateKeyPair,
  type JWK,
  type JWTPayload,
  jwtVerify,
  SignJWT,
  UnsecuredJWT,
} from 'jose';
import Provider, { errors } from 'oidc-provider';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
const ID_JAG_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';

export interface CompanyIdpOptions {
  tenant: string;
  /** The gateway's `/sign-in/idp/callback`. */
  redirectUri: string;
  /** Each person's claims by their login name (`sub` defaults to the login). */
  people: Record<string, Record<string, unknown>>;
  clientId?: string;
  clientSecret?: string;
  /** ID-JAGs issued by token exchange: each audience's (authorization server's) client id there. */
  idJags?: Record<string, string>;
}

/** One ID-JAG request as the IdP's token endpoint received it. */
export interface IdJagRequestSeen {
  subjectToken: string;
  audience: string | undefined;
  resource: string | undefined;
  /** The ID-JAG issued; undefined when refused. */
  idJag: string | undefined;
}

/** What an attack does to the ID token the token endpoint is about to answer with. */
export type IdTokenTamper = (idToken: string) => Promise<string>;

export interface CompanyIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** People's claims: change them between sign-ins (a rename at the IdP). */
  people: Record<string, Record<string, unknown>>;
  /** Set to change the next ID tokens; undefined: the real ones. */
  tamper: IdTokenTamper | undefined;
  /** Signs a payload with the IdP's own key (a token only its audience or claims make wrong); `typ` in its header when given. */
  signWithIdpKey(payload: JWTPayload, typ?: string): Promise<string>;
  /** Signs a payload with a key the IdP never published. */
  signWithOtherKey(payload: JWTPayload, typ?: string): Promise<string>;
  /** An unsigned token (`alg: none`) with the payload. */
  unsigned(payload: JWTPayload): string;
  /** The person can no longer be found at the IdP (disabled): their refresh tokens are refused. */
  disable(person: string): void;
  /** Token requests the IdP answered. */
  tokenRequests: number;
  /** ID-JAG requests (token exchanges), in order. */
  idJagRequests: IdJagRequestSeen[];
  close(): Promise<void>;
}

export async function startCompanyIdp(options: CompanyIdpOptions): Promise<CompanyIdp> {
  const clientId = options.clientId ?? `portcullis-${options.tenant}`;
  const clientSecret = options.clientSecret ?? `company-secret-${options.tenant}-7f3a9c2e5b`;
  const own = await generateKeyPair('RS256', { extractable: true });
  const other = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = {
    ...(await exportJWK(own.privateKey)),
    kid: `${options.tenant}-1`,
    alg: 'RS256',
    use: 'sig',
  };
  const app = express();
  const http = await new Promise<Server>((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
  const port = (http.address() as { port: number }).port;
  const issuer = `http://127.0.0.1:${port}/idp/${options.tenant}`;
  const people = options.people;
  const disabled = new Set<string>();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: [
          'authorization_code',
          'refresh_token',
          ...(options.idJags ? [TOKEN_EXCHANGE] : []),
        ],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [jwk] as never[] },
    cookies: { keys: ['company-idp-test-cookie-key'] },
    scopes: ['openid', 'profile', 'email', 'groups', 'offline_access'],
    claims: {
      openid: ['sub'],
      profile: ['preferred_username', 'name'],
      email: ['email', 'email_verified'],
      groups: ['groups'],
    },
    // The scopes' claims in the ID token itself, as Okta and Entra can be set to do.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    // Every code grant gets a refresh token (what idp sync reads the groups again with).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    findAccount: async (_ctx, id) =>
      disabled.has(id)
        ? undefined
        : { accountId: id, claims: async () => ({ sub: id, ...people[id] }) },
    ttl: { AccessToken: 3600, Grant: 3600, Interaction: 600, IdToken: 3600, Session: 3600 },
  });
  const idp: CompanyIdp = {
    issuer,
    clientId,
    clientSecret,
    people,
    tamper: undefined,
    tokenRequests: 0,
    idJagRequests: [],
    disable(person) {
      disabled.add(person);
    },
    async signWithIdpKey(payload, typ) {
      return new SignJWT(payload)
        .setProtectedHeader({ alg: 'RS256', kid: jwk.kid!, ...(typ === undefined ? {} : { typ }) })
        .sign(own.privateKey);
    },
    async signWithOtherKey(payload, typ) {
      return new SignJWT(payload)
        .setProtectedHeader({ alg: 'RS256', kid: jwk.kid!, ...(typ === undefined ? {} : { typ }) })
        .sign(other.privateKey);
    },
    unsigned(payload) {
      return new UnsecuredJWT(payload).encode();
    },
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
  if (options.idJags) {
    const audiences = options.idJags;
    provider.registerGrantType(
      TOKEN_EXCHANGE,
      async (ctx) => {
        const params = ctx.oidc.params as Record<string, string | undefined>;
        const seen: IdJagRequestSeen = {
          subjectToken: params.subject_token ?? '',
          audience: params.audience,
          resource: params.resource,
          idJag: undefined,
        };
        idp.idJagRequests.push(seen);
        const clientAtAudience = audiences[seen.audience ?? ''];
        if (
          params.subject_token_type !== ID_TOKEN_TYPE ||
          params.requested_token_type !== ID_JAG_TYPE ||
          clientAtAudience === undefined ||
          seen.resource === undefined
        )
          throw new errors.InvalidRequest('not an ID-JAG request this IdP answers');
        let sub: string;
        try {
          const { payload } = await jwtVerify(seen.subjectToken, own.publicKey, {
            issuer,
            audience: clientId,
          });
          sub = String(payload.sub);
        } catch {
          throw new errors.InvalidGrant('the subject token is not an ID token of this IdP');
        }
        const now = Math.floor(Date.now() / 1000);
        seen.idJag = await new SignJWT({
          sub,
          resource: seen.resource,
          client_id: clientAtAudience,
          jti: randomUUID(),
        })
          .setProtectedHeader({ alg: 'RS256', kid: jwk.kid!, typ: 'oauth-id-jag+jwt' })
          .setIssuer(issuer)
          .setAudience(seen.audience!)
          .setIssuedAt(now)
          .setExpirationTime(now + 300)
          .sign(own.privateKey);
        ctx.body = {
          access_token: seen.idJag,
          issued_token_type: ID_JAG_TYPE,
          token_type: 'N_A',
          expires_in: 300,
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
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.method !== 'POST' || ctx.path !== '/token') return;
    idp.tokenRequests++;
    const body = ctx.body as { id_token?: string } | undefined;
    if (idp.tamper && body?.id_token)
      ctx.body = { ...body, id_token: await idp.tamper(body.id_token) };
  });
  app.use(`/idp/${options.tenant}`, provider.callback());
  return idp;
}

/** The claims of an ID token, to build a tampered one from. */
export function claimsOf(idToken: string): JWTPayload {
  return decodeJwt(idToken);
}
