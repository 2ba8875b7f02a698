/**
 * Who presents a token request: a machine client an operator registered,
 * authenticated by its secret (`client_secret_basic`, RFC 6749 §2.3.1) or by
 * a client assertion signed with one of the keys at its JWKS URL
 * (`private_key_jwt`, RFC 7523 §2.2: `iss` and `sub` its id, `aud` this
 * issuer or its token endpoint, `exp` at most 5 minutes ahead, a `jti` never
 * seen before on any replica); or a public client, which authenticates with
 * nothing (PKCE does its work).
 */
import { timingSafeEqual } from 'node:crypto';
import { decodeJwt, errors, jwtVerify } from 'jose';
import { sha256Hex } from '../../../../generated/catalog-rules.ts';
import type { MachineAuthMethod, MachineClient } from '../../model/oauth.ts';
import type { JtiClaim } from './jti-ledger.ts';
import type { OAuthContext } from './oauth-context.ts';
import { OAuthError, type TokenRefusal } from './oauth-error.ts';

export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** The signature algorithms a client assertion or an ID-JAG may use (never `none`, never an HMAC). */
export const ASYMMETRIC_ALGORITHMS = [
  'ES256',
  'ES384',
  'ES512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'EdDSA',
  'Ed25519',
];
/** The longest a client assertion may live: it is a proof for one request. */
const MAX_ASSERTION_LIFETIME_S = 300;
const MAX_ID_LENGTH = 100;

/**
 * Who presents the request; a `private_key_jwt` client's assertion `jti`,
 * claimed, is released when the request fails after it (`jti-ledger.ts`).
 */
export type Presenter =
  | { kind: 'public' }
  | { kind: 'machine'; client: MachineClient; assertion?: JtiClaim };

type Form = Readonly<Record<string, string | undefined>>;

export async function authenticateClient(
  ctx: OAuthContext,
  form: Form,
  authorization: string | undefined,
): Promise<Presenter> {
  if (authorization !== undefined)
    return { kind: 'machine', client: await bySecret(ctx, form, authorization) };
  if (form.client_assertion_type !== undefined || form.client_assertion !== undefined)
    return { kind: 'machine', ...(await byAssertion(ctx, form)) };
  return { kind: 'public' };
}

async function bySecret(
  ctx: OAuthContext,
  form: Form,
  authorization: string,
): Promise<MachineClient> {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(authorization.trim());
  const decoded = match ? Buffer.from(match[1] ?? '', 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon < 1)
    refuse('client_auth_method', 'Authorization: expected Basic with the client id and secret');
  const id = formDecoded(decoded.slice(0, colon));
  const secret = formDecoded(decoded.slice(colon + 1));
  if (form.client_id !== undefined && form.client_id !== id)
    refuse('client_unknown', 'client_id: not the client the Authorization header names');
  const client = await machineClient(ctx, id, 'client_secret_basic');
  const want = Buffer.from(client.secretHash ?? '', 'hex');
  const got = Buffer.from(sha256Hex(secret), 'hex');
  if (want.length !== got.length || !timingSafeEqual(want, got))
    refuse('client_secret_wrong', 'the client secret does not match');
  return client;
}

async function byAssertion(
  ctx: OAuthContext,
  form: Form,
): Promise<{ client: MachineClient; assertion: JtiClaim }> {
  if (form.client_assertion_type !== JWT_BEARER_ASSERTION)
    refuse('client_auth_method', `client_assertion_type: expected ${JWT_BEARER_ASSERTION}`);
  const assertion = form.client_assertion ?? '';
  let claimed: unknown;
  try {
    claimed = decodeJwt(assertion).iss;
  } catch {
    refuse('assertion_invalid', 'client_assertion: not a JWT');
  }
  const id = form.client_id ?? (typeof claimed === 'string' ? claimed : '');
  const client = await machineClient(ctx, id, 'private_key_jwt');
  const now = ctx.now();
  let payload: Awaited<ReturnType<typeof jwtVerify>>['payload'];
  try {
    ({ payload } = await jwtVerify(assertion, ctx.keySets.at(client.jwksUri ?? ''), {
      issuer: client.id,
      subject: client.id,
      audience: [ctx.issuer, `${ctx.issuer}/oauth/token`],
      algorithms: ASYMMETRIC_ALGORITHMS,
      requiredClaims: ['exp', 'jti'],
      currentDate: now,
      clockTolerance: 30,
    }));
  } catch (error) {
    throw assertionRefusal(error);
  }
  const exp = payload.exp ?? 0;
  if (exp - now.getTime() / 1000 > MAX_ASSERTION_LIFETIME_S)
    refuse(
      'assertion_lifetime',
      `client_assertion: exp more than ${MAX_ASSERTION_LIFETIME_S} s ahead`,
    );
  const claim = await ctx.jtis.claim(`assertion:${client.id}`, String(payload.jti), exp, now);
  if (claim === undefined)
    refuse('assertion_replayed', 'client_assertion: this jti was used already');
  return { client, assertion: claim };
}

async function machineClient(
  ctx: OAuthContext,
  id: string,
  method: MachineAuthMethod,
): Promise<MachineClient> {
  const client =
    id !== '' && id.length <= MAX_ID_LENGTH
      ? await ctx.store.oauth.machineClients.byId(id)
      : undefined;
  if (client === undefined)
    refuse('client_unknown', 'client_id: no machine client is registered with this id');
  if (client.auth !== method)
    refuse('client_auth_method', `this client authenticates with ${client.auth}`);
  return client;
}

function assertionRefusal(error: unknown): OAuthError {
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud')
      return refusal(
        'assertion_audience',
        'client_assertion: aud is not this authorization server',
      );
    if (error.claim === 'exp' || error.claim === 'iat' || error.claim === 'nbf')
      return refusal('assertion_lifetime', `client_assertion: ${error.claim} is not valid now`);
    return refusal('assertion_invalid', `client_assertion: ${error.claim} is not the client's`);
  }
  if (error instanceof errors.JWTExpired)
    return refusal('assertion_lifetime', 'client_assertion: expired');
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid)
    return refusal('keys_unavailable', "client_assertion: the client's keys could not be read");
  if (error instanceof errors.JOSEError)
    return refusal(
      'assertion_signature',
      'client_assertion: not signed by one of the keys the client publishes',
    );
  // The guarded client's own failure (the JWKS URL unreachable or refused).
  return refusal(
    'keys_unavailable',
    "client_assertion: the client's keys could not be read",
    error,
  );
}

function refusal(code: TokenRefusal, description: string, cause?: unknown): OAuthError {
  return new OAuthError('invalid_client', description, {
    refusal: code,
    ...(cause === undefined ? {} : { cause }),
  });
}

function refuse(code: TokenRefusal, description: string): never {
  throw refusal(code, description);
}

/** RFC 6749 §2.3.1: the id and secret are form-encoded before Basic. */
function formDecoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
