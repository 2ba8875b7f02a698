/**
 * Access tokens: JWTs (RFC 9068, `typ: at+jwt`) signed with the current
 * signing key, 15 minutes, audience-bound to the one resource they were
 * asked for. Besides the registered claims they name the workspace, the
 * agent principal, the client, the consent and the refresh-token family, so
 * a revoked consent or family stops them on their next request. A machine
 * client's token (`client_credentials`) names no consent nor family: its
 * `sub` is the client, and the client's registration is what keeps it live.
 * A token issued from an ID-JAG names the enterprise IdP that issued it
 * (`idp`, its provider's name), so each of its calls' audit events records
 * the delegation chain through it.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { ActiveKey } from './signing-keys.ts';

export const ACCESS_TOKEN_TTL_S = 15 * 60;

export interface AccessTokenClaims {
  iss: string;
  aud: string;
  sub: string;
  exp: number;
  iat: number;
  jti: string;
  client_id: string;
  scope: string;
  workspace: string;
  agent: string;
  consent?: string;
  family?: string;
  idp?: string;
}

export interface AccessTokenSubject {
  issuer: string;
  resource: string;
  memberId: string;
  clientId: string;
  scopes: readonly string[];
  workspaceId: string;
  agentId: string;
  /** Unset, with `familyId`, for a machine client's token. */
  consentId?: string | undefined;
  familyId?: string | undefined;
  /** The provider whose ID-JAG the token is issued from; unset for every other grant. */
  idp?: string | undefined;
}

export async function signAccessToken(
  subject: AccessTokenSubject,
  key: ActiveKey,
  now: Date,
): Promise<{ token: string; expiresIn: number }> {
  const iat = Math.floor(now.getTime() / 1000);
  const token = await new SignJWT({
    client_id: subject.clientId,
    scope: subject.scopes.join(' '),
    workspace: subject.workspaceId,
    agent: subject.agentId,
    ...(subject.consentId === undefined ? {} : { consent: subject.consentId }),
    ...(subject.familyId === undefined ? {} : { family: subject.familyId }),
    ...(subject.idp === undefined ? {} : { idp: subject.idp }),
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt' })
    .setIssuer(subject.issuer)
    .setAudience(subject.resource)
    .setSubject(subject.memberId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_TTL_S)
    .setJti(randomUUID())
    .sign(key.privateKey);
  return { token, expiresIn: ACCESS_TOKEN_TTL_S };
}
