/**
 * Enterprise-Managed Authorization: the JWT bearer grant (RFC 7523 §2.1,
 * `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`) with an
 * Identity Assertion JWT Authorization Grant (ID-JAG, `typ:
 * oauth-id-jag+jwt`) that the company's IdP issued to the client by token
 * exchange. Redeemed by an authenticated machine client, when:
 *
 * - its `iss` is a provider trusted to issue them (`idp add --id-jag`), in
 *   the client's workspace, and it is signed by one of the keys the
 *   provider publishes (its OpenID metadata's `jwks_uri`; never `none`);
 * - `aud` is this issuer, `client_id` the presenting client, `resource` one
 *   of our MCP endpoints (and the request's `resource`, when it names one),
 *   not expired, and its `jti` never seen before on any replica.
 *
 * What the redemption writes lands in one store transaction, the `jti`
 * last: a refusal once the checks above have passed (the member's grants
 * reach none of its scopes, their agent for the client revoked, a replay
 * that won a race) leaves no member, grant, consent, token family or `jti`
 * behind, only the refusal's audit event.
 *
 * The member it names is found, or made, by the provider's `iss` and `sub`
 * as a sign-in does (two providers' equal `sub`s are two members), and the
 * groups it lists (when it has the provider's groups claim) applied as a
 * sign-in applies them. The token
 * carries the scopes the ID-JAG allows (narrowed by the request's `scope`)
 * that the member's grants reach at least one connection with, acting as the
 * member's agent for this client (the consent is made or renewed without a
 * page: the IdP decided). No refresh token: the client asks the IdP for a
 * new ID-JAG.
 */
import { randomBytes } from 'node:crypto';
import { decodeJwt, errors, type JWTPayload, jwtVerify } from 'jose';
import { sha256Hex } from '../../../../generated/catalog-rules.ts';
import { newId } from '../../governance/keys.ts';
import type { IdentityProvider } from '../../model/identity.ts';
import type { MachineClient, Member, TokenFamily } from '../../model/oauth.ts';
import type { Store } from '../../ports/store.ts';
import { isKnownScope, parseScope } from '../principals/scopes.ts';
import { ACCESS_TOKEN_TTL_S, signAccessToken } from './access-token.ts';
import { ASYMMETRIC_ALGORITHMS } from './client-authentication.ts';
import { resourceOrThrow, signingKeyOf } from './client-credentials-grant.ts';
import { approveConsent } from './consents.ts';
import { applyGroups } from './idp-groups.ts';
import { memberOfIdentity } from './idp-members.ts';
import type { JtiClaim } from './jti-ledger.ts';
import { memberReach } from './member-reach.ts';
import { auditOAuth, type OAuthContext } from './oauth-context.ts';
import { OAuthError, type TokenRefusal } from './oauth-error.ts';
import { jsonReply, type OAuthReply } from './oauth-reply.ts';

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const ID_JAG_TYPE = 'oauth-id-jag+jwt';

type Form = Readonly<Record<string, string | undefined>>;

export async function idJagGrant(
  ctx: OAuthContext,
  client: MachineClient,
  form: Form,
): Promise<OAuthReply> {
  const assertion = form.assertion;
  if (assertion === undefined || assertion === '')
    throw new OAuthError('invalid_request', 'assertion: missing');
  const provider = await trustedIssuerOf(ctx, assertion);
  if (provider.workspaceId !== client.workspaceId)
    refuse('id_jag_workspace', "the ID-JAG's provider serves another workspace than this client");
  const payload = await verified(ctx, provider, assertion);
  if (payload.client_id !== client.id)
    refuse('id_jag_client', 'the ID-JAG was issued to another client');
  const resource = resourceOf(ctx, payload, form);
  const asked = askedScopes(payload, form);
  const key = signingKeyOf(ctx);
  const now = ctx.now();
  // Every write of the redemption (the member and their identity, what the
  // groups give, the consent and its agent, the token family, the jti) is in
  // one transaction: a refusal after any of them (the scopes reach nothing,
  // the member's agent was revoked, a replay) leaves none of them behind.
  let claim: JtiClaim | undefined;
  const issued = await ctx.store
    .transaction(async (store) => {
      const tx: OAuthContext = { ...ctx, store };
      const found = await memberOfIdentity(tx, provider, {
        iss: provider.issuer,
        sub: String(payload.sub),
        claims: payload,
      });
      // Groups the signed ID-JAG lists count as a sign-in's; one that lists none leaves them as they are.
      const member =
        provider.groupsClaim !== null && provider.groupsClaim in payload
          ? await applyGroups(tx, provider, found.member, payload)
          : found.member;
      const scopes = await reachedScopes(store, member, asked);
      const consent = await approveConsent(
        tx,
        member,
        { id: client.id, name: client.name, redirectUris: [], kind: 'registered' },
        scopes,
      );
      const family: TokenFamily = {
        id: newId(),
        consentId: consent.id,
        clientId: client.id,
        scopes,
        resource,
        status: 'active',
        createdAt: now.toISOString(),
        // Lives as long as its one access token: pruned with the other dead families.
        expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_S * 1000).toISOString(),
        revokedAt: null,
      };
      // A family needs a first refresh token: one nobody holds (none is given out).
      await store.oauth.tokens.start(family, {
        tokenHash: sha256Hex(randomBytes(32).toString('base64url')),
        familyId: family.id,
        scopes,
        status: 'active',
        createdAt: now.toISOString(),
      });
      // Last of the writes, so that no refusal above uses the ID-JAG up; a
      // replay (here, or another replica's redemption of it committing first)
      // undoes everything above.
      const jti = String(payload.jti);
      claim = await ctx.jtis.claim(`id-jag:${provider.issuer}`, jti, payload.exp ?? 0, now, store);
      if (claim === undefined) refuse('id_jag_replayed', 'this ID-JAG was redeemed already');
      const signed = await signAccessToken(
        {
          issuer: ctx.issuer,
          resource,
          memberId: member.id,
          clientId: client.id,
          scopes,
          workspaceId: consent.workspaceId,
          agentId: consent.agentId,
          consentId: consent.id,
          familyId: family.id,
          idp: provider.name,
        },
        key,
        now,
      );
      await auditOAuth(tx, {
        action: 'oauth.token.id_jag',
        actorKind: 'agent',
        actorId: consent.agentId,
        workspaceId: consent.workspaceId,
        subject: `${provider.name}:${member.id}:${client.id}`,
      });
      return { ...signed, scopes };
    })
    .catch(async (error: unknown) => {
      // Nothing of the redemption committed (a write after the claim, or the commit, failed): the ID-JAG is not used up.
      await claim?.release();
      throw error;
    });
  return jsonReply(200, {
    access_token: issued.token,
    token_type: 'Bearer',
    expires_in: issued.expiresIn,
    scope: issued.scopes.join(' '),
  });
}

/** The provider whose `iss` the (not yet verified) ID-JAG names, when it is trusted to issue them. */
async function trustedIssuerOf(ctx: OAuthContext, assertion: string): Promise<IdentityProvider> {
  let iss: unknown;
  try {
    iss = decodeJwt(assertion).iss;
  } catch {
    refuse('id_jag_invalid', 'assertion: not a JWT');
  }
  const provider = (await ctx.store.identity.providers()).find(
    (candidate) => candidate.idJag && candidate.issuer === iss,
  );
  if (provider === undefined)
    refuse('id_jag_issuer', 'assertion: its issuer is not trusted to issue ID-JAGs here');
  return provider;
}

async function verified(
  ctx: OAuthContext,
  provider: IdentityProvider,
  assertion: string,
): Promise<JWTPayload> {
  let jwksUri: string | undefined;
  try {
    jwksUri = (await ctx.idps.peer(provider)).metadata.jwks_uri;
  } catch (error) {
    throw refusal('keys_unavailable', "the identity provider's keys could not be read", error);
  }
  if (jwksUri === undefined)
    refuse('keys_unavailable', "the identity provider's keys could not be read");
  try {
    const { payload } = await jwtVerify(assertion, ctx.keySets.at(jwksUri), {
      issuer: provider.issuer,
      audience: ctx.issuer,
      typ: ID_JAG_TYPE,
      algorithms: ASYMMETRIC_ALGORITHMS,
      requiredClaims: ['exp', 'iat', 'jti', 'sub', 'client_id'],
      currentDate: ctx.now(),
      clockTolerance: 30,
    });
    return payload;
  } catch (error) {
    throw verificationRefusal(error);
  }
}

function verificationRefusal(error: unknown): OAuthError {
  if (error instanceof errors.JWTExpired) return refusal('id_jag_expired', 'assertion: expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud')
      return refusal('id_jag_audience', 'assertion: aud is not this authorization server');
    if (error.claim === 'typ')
      return refusal('id_jag_type', `assertion: typ is not ${ID_JAG_TYPE}`);
    return refusal('id_jag_invalid', `assertion: ${error.claim} is missing or not valid now`);
  }
  if (error instanceof errors.JOSEError && !(error instanceof errors.JWKSTimeout))
    return refusal('id_jag_signature', "assertion: not signed by one of the provider's keys");
  return refusal('keys_unavailable', "the identity provider's keys could not be read", error);
}

/** `resource`: the ID-JAG's, one of our endpoints, and the request's when it names one. */
function resourceOf(ctx: OAuthContext, payload: JWTPayload, form: Form): string {
  const granted = payload.resource;
  if (typeof granted !== 'string' || ctx.resources.pathOf(granted) === undefined)
    refuse('id_jag_resource', "assertion: resource is not one of this gateway's MCP endpoints");
  if (form.resource !== undefined && form.resource !== granted)
    refuse('id_jag_resource', 'resource: not the one the ID-JAG was issued for');
  return resourceOrThrow(ctx, granted);
}

/** What the ID-JAG allows, narrowed by the request's `scope` (which may not widen it). */
function askedScopes(payload: JWTPayload, form: Form): string[] {
  const allowed = (typeof payload.scope === 'string' ? payload.scope : '')
    .split(' ')
    .filter(isKnownScope);
  if (form.scope === undefined || form.scope.trim() === '') return allowed;
  const parsed = parseScope(form.scope);
  if ('unknown' in parsed || parsed.scopes.some((scope) => !allowed.includes(scope)))
    refuse('id_jag_scope', 'scope: the ID-JAG does not allow it');
  return parsed.scopes;
}

/** The scopes asked that the member's grants reach at least one connection with. */
async function reachedScopes(
  store: Store,
  member: Member,
  asked: readonly string[],
): Promise<string[]> {
  const reach = await memberReach(store, member, asked);
  const reached = [...new Set(asked)]
    .filter((scope) => (reach.byScope.get(scope) ?? []).length > 0)
    .sort();
  if (reached.length === 0)
    refuse('id_jag_scope', "the member's grants reach nothing with the scopes the ID-JAG allows");
  return reached;
}

function refusal(code: TokenRefusal, description: string, cause?: unknown): OAuthError {
  return new OAuthError('invalid_grant', description, {
    refusal: code,
    ...(cause === undefined ? {} : { cause }),
  });
}

function refuse(code: TokenRefusal, description: string): never {
  throw refusal(code, description);
}
