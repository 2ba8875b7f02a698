/**
 * The authorization request a consent page carries in its form, so the
 * server keeps nothing for a request no one has signed in to: what
 * `GET /oauth/authorize` checked, signed with the authorization server's
 * signing key as a JWT of its own type and audience (never an access token:
 * those are `at+jwt` for an MCP endpoint), valid for 10 minutes. Every
 * replica opens what any other sealed; a rotated key still opens it, a
 * revoked one does not. The person's browser can read it, and nothing in it
 * is secret from them: it is what their browser sent, and the CSRF token's
 * hash.
 */
import { randomBytes } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import type { ResolvedClient } from './client-metadata-documents.ts';
import type { OAuthContext } from './oauth-context.ts';

export const CONSENT_REQUEST_TTL_MS = 10 * 60_000;
const TYPE = 'portcullis-consent-request+jwt';
const CLAIM = 'authorization_request';

export interface PendingAuthorization {
  clientId: string;
  clientName: string;
  clientKind: ResolvedClient['kind'];
  redirectUri: string;
  state: string | undefined;
  scopes: string[];
  resource: string;
  codeChallenge: string;
  csrfHash: string;
  /** Set once a member signed in on the page: the review step approves for them without a password. */
  memberId?: string;
  memberName?: string;
  /** The stamp of the password they signed in with: the review approves only while it is theirs. */
  memberPasswordStamp?: string;
}

export interface ConsentRequest {
  /** Names this request (its cookie, its one approval). */
  id: string;
  pending: PendingAuthorization;
  /** Epoch milliseconds. */
  expiresAt: number;
}

const audienceOf = (ctx: OAuthContext) => `${ctx.issuer}/oauth/authorize`;

/** The request sealed for the form, and its id. */
export async function sealConsentRequest(
  ctx: OAuthContext,
  pending: PendingAuthorization,
  /** The request's id when it is sealed again (its cookie and its one approval keep it). */
  id: string = randomBytes(16).toString('base64url'),
  /** When it is sealed again: it expires when it would have anyway. */
  expiresAt?: number,
): Promise<{ id: string; sealed: string }> {
  const key = ctx.keys.current;
  const now = ctx.now().getTime();
  const sealed = await new SignJWT({ [CLAIM]: pending })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: TYPE })
    .setIssuer(ctx.issuer)
    .setAudience(audienceOf(ctx))
    .setJti(id)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor((expiresAt ?? now + CONSENT_REQUEST_TTL_MS) / 1000))
    .sign(key.privateKey);
  return { id, sealed };
}

/** What a form carried, while it is this server's, whole and unexpired; undefined otherwise. */
export async function openConsentRequest(
  ctx: OAuthContext,
  sealed: string,
): Promise<ConsentRequest | undefined> {
  try {
    const { payload } = await jwtVerify(
      sealed,
      async (header) => {
        const found = await ctx.keys.publicKeyFor(header.kid);
        if (!found) throw new errors.JWKSNoMatchingKey();
        return found.key;
      },
      {
        issuer: ctx.issuer,
        audience: audienceOf(ctx),
        typ: TYPE,
        algorithms: ['ES256', 'RS256'],
        requiredClaims: ['jti', 'exp'],
        currentDate: ctx.now(),
      },
    );
    const pending = payload[CLAIM];
    if (typeof pending !== 'object' || pending === null || typeof payload.jti !== 'string')
      return undefined;
    return {
      id: payload.jti,
      pending: pending as PendingAuthorization,
      expiresAt: (payload.exp ?? 0) * 1000,
    };
  } catch (error) {
    if (error instanceof errors.JOSEError) return undefined;
    throw error;
  }
}
