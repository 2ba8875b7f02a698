/**
 * A subject token Portcullis mints for RFC 8693 token exchange at a remote
 * connection's authorization server (`connection auth --on-behalf-of
 * portcullis`; issue 35): a short JWT signed with the authorization
 * server's current key (its JWKS at `/oauth/jwks`), `sub` the member, `aud`
 * the upstream's issuer (never one of our resources: it is not an access
 * token here), `act` the agent acting for them (RFC 8693 §4.1), `client_id`
 * the client it runs in. The upstream trusts our issuer to accept it.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { ActingFor } from '../../model/delegation.ts';
import type { ActiveKey } from './signing-keys.ts';

export const SUBJECT_TOKEN_TTL_S = 5 * 60;

export async function signSubjectToken(
  issuer: string,
  key: ActiveKey,
  acting: ActingFor,
  audience: string,
  now: Date,
): Promise<{ token: string; expiresAt: Date }> {
  const iat = Math.floor(now.getTime() / 1000);
  const token = await new SignJWT({
    act: { sub: acting.agentId },
    ...(acting.clientId !== null ? { client_id: acting.clientId } : {}),
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject(acting.memberId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + SUBJECT_TOKEN_TTL_S)
    .setJti(randomUUID())
    .sign(key.privateKey);
  return { token, expiresAt: new Date((iat + SUBJECT_TOKEN_TTL_S) * 1000) };
}
