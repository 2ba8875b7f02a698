/**
 * Enterprise-Managed Authorization towards an upstream (MCP's `ext-auth`
 * extension, SEP-990; the suite's `auth/enterprise-managed-authorization`):
 * a connection set with `connection auth <c> --id-jag <idp>` carries, on an
 * agent's call for a member, a token the upstream's authorization server
 * issued for an ID-JAG the company's IdP issued for the member.
 *
 * 1. The member's ID token, from their last sign-in at `<idp>` (kept sealed
 *    by the sign-in; `idp_session_required` when none is live or it is from
 *    another provider), is traded at the IdP's token endpoint by RFC 8693
 *    token exchange (`subject_token_type` id_token, `requested_token_type`
 *    id-jag, `audience` the upstream AS's issuer, `resource` the upstream),
 *    the gateway authenticating as its own client at the IdP
 *    (`oauth-server/id-jag-request.ts`; `idp_id_jag_failed`).
 * 2. The ID-JAG is redeemed here at the upstream AS with the RFC 7523
 *    jwt-bearer grant (`assertion`, `resource`, the connection's scopes),
 *    the gateway authenticating as the connection's client there
 *    (`client_secret_basic`; `upstream_jwt_bearer_failed`).
 * 3. The access token is cached as exchanged tokens are (`delegated-tokens.ts`:
 *    per connection, member, agent and member epoch, in process and sealed
 *    in the shared state), so a repeated call makes neither request; the
 *    audit event names the chain. The gateway's own tokens never go upstream.
 *
 * `auth/wif-jwt-bearer` (a workload's own JWT as the assertion) is not done:
 * the gateway has no workload identity of its own to present; see
 * docs/upstream-sign-in.md.
 */
import * as oauth from 'oauth4webapi';
import { JWT_BEARER_GRANT } from '../../model/delegation.ts';
import { Redactor } from '../../outbound/redaction.ts';
import type { TokenGrant, TokenSet, UpstreamOAuthContext } from './engine-contract.ts';
import { clientAuthOf, clientOf, secretRedactor, serverOf } from './library-shapes.ts';
import { oauthFailure } from './oauth-errors.ts';
import { libraryOptions } from './oauth-http.ts';
import { tokenSetOf } from './tokens.ts';

/** RFC 7523 §2.1: the ID-JAG for an access token of the upstream's, with its `resource`. */
export async function redeemIdJag(
  grant: TokenGrant,
  idJag: string,
  scopes: readonly string[],
  context: UpstreamOAuthContext,
): Promise<TokenSet> {
  const now = (context.now ?? (() => new Date()))();
  const server = serverOf(grant.metadata, context.policy, ['token']);
  const client = clientOf(grant.client);
  const parameters = new URLSearchParams({ assertion: idJag });
  if (grant.sendResource) parameters.set('resource', grant.resource);
  if (scopes.length > 0) parameters.set('scope', scopes.join(' '));
  const redactor = new Redactor([idJag], secretRedactor(grant.client));
  try {
    const response = await oauth.genericTokenEndpointRequest(
      server,
      client,
      clientAuthOf(grant.client),
      JWT_BEARER_GRANT,
      parameters,
      libraryOptions(context, redactor),
    );
    const result = await oauth.processGenericTokenEndpointResponse(server, client, response);
    // No refresh token is kept: an expired token is got again from a new ID-JAG.
    const { refreshToken: _, ...tokens } = tokenSetOf(result, scopes, now);
    return tokens;
  } catch (error) {
    throw await oauthFailure(error, 'jwt bearer', grant.sendResource);
  }
}
