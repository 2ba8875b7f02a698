/**
 * Enterprise-Managed Authorization from the gateway's side: the company's
 * IdP (test/support/identity/company-idp.ts) trusted with `--id-jag` and its
 * group `eng` mapped to a connection's reads, ID-JAGs signed with the IdP's
 * own key (oidc-provider has no ID-JAG issuance of its own), and their
 * redemption with the JWT bearer grant by a machine client.
 */
import { randomUUID } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { expect } from 'vitest';
import type { OperatorContext } from '../../../runtime/core/operator/context.ts';
import { mapGroup } from '../../../runtime/core/operator/identity-groups.ts';
import { addIdentityProvider } from '../../../runtime/core/operator/identity-providers.ts';
import { basic, JWT_BEARER_GRANT } from '../oauth/machine-client.ts';
import { tokenRequest } from '../oauth/raw-flow.ts';
import type { CompanyIdp } from './company-idp.ts';

/** The `typ` of an ID-JAG's header. */
export const ID_JAG = 'oauth-id-jag+jwt';

/** A machine client's id and secret (client_secret_basic). */
export interface ClientSecret {
  id: string;
  secret: string;
}

export interface IdJagTrustOptions {
  /** The provider's name at the gateway; default `acme`. */
  name?: string;
  /** The connection the group `eng` reads. */
  connection: string;
  /** More of the provider's settings (`scopes`, `role`). */
  provider?: Record<string, unknown>;
}

/** The gateway (`issuerBase` its public URL) trusts `idp`'s ID-JAGs and its `groups` claim; `eng` reads the connection. */
export async function trustIdJags(
  ctx: OperatorContext,
  idp: CompanyIdp,
  issuerBase: string,
  options: IdJagTrustOptions,
): Promise<void> {
  const name = options.name ?? 'acme';
  await addIdentityProvider(
    ctx,
    {
      workspace: 'default',
      name,
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecretEnv: `PORTCULLIS_IDP_${name.toUpperCase()}_SECRET`,
      groupsClaim: 'groups',
      ...options.provider,
      idJag: true,
    },
    issuerBase,
  );
  await mapGroup(ctx, {
    workspace: 'default',
    provider: name,
    group: 'eng',
    connection: options.connection,
    scope: 'reads',
  });
}

/**
 * An ID-JAG's claims: `sub` for `clientId` at the gateway `audience` (its
 * `/mcp` the resource), a fresh jti, five minutes to live; `claims` over them.
 */
export function idJagClaims(
  idp: CompanyIdp,
  to: { sub: string; audience: string; clientId: string },
  claims: JWTPayload = {},
): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: idp.issuer,
    sub: to.sub,
    aud: to.audience,
    client_id: to.clientId,
    jti: randomUUID(),
    iat: now,
    exp: now + 300,
    resource: `${to.audience}/mcp`,
    ...claims,
  };
}

/** An ID-JAG of `idJagClaims`, signed with the IdP's own key. */
export function signIdJag(
  idp: CompanyIdp,
  to: { sub: string; audience: string; clientId: string },
  claims: JWTPayload = {},
): Promise<string> {
  return idp.signWithIdpKey(idJagClaims(idp, to, claims), ID_JAG);
}

/** The access token the gateway at `url` answers `client`'s JWT bearer grant of `assertion` with (expects 200). */
export async function redeemIdJag(
  url: string,
  client: ClientSecret,
  assertion: string,
): Promise<string> {
  const reply = await tokenRequest(
    url,
    { grant_type: JWT_BEARER_GRANT, assertion },
    basic(client.id, client.secret),
  );
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return String(reply.body.access_token);
}
