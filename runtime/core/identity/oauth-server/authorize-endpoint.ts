/**
 * `GET /oauth/authorize` and the consent form it shows (`POST`).
 *
 * GET checks, in this order: the client (registered, or its metadata
 * document), the redirect URI (exactly one of the client's own): until both
 * hold, an error is shown on a page and never redirected, so the endpoint
 * cannot be an open redirect. After that, errors go back to the client with
 * `state` and `iss`: response type, PKCE (S256 only), repeated parameters,
 * a `state` longer than 1024 characters (sent back without it), scope,
 * resource. A valid request is sealed into the page's form
 * (consent-request.ts), valid for 10 minutes: the server keeps nothing for
 * it, so requests no one signs in to cost it nothing. The page asks the
 * person to sign in and approve or deny.
 *
 * POST takes the form back. Its CSRF token must match both the sealed
 * request's and the cookie the page set (SameSite=Strict, HttpOnly). Deny
 * returns `access_denied`. Approve signs the member in (rate limited per
 * address and per name), takes the request's one decision, records the
 * consent and redirects with a single-use code. A request is decided once,
 * whichever way: deny takes its one decision too, and a form posted again
 * after either (the same request and CSRF token) is refused
 * `consent_decided`, on a page, with no code.
 */
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../../../generated/catalog-rules.ts';
import { GatewayError, REASONS } from '../../base/errors.ts';
import type { Member } from '../../model/oauth.ts';
import { parseScope } from '../principals/scopes.ts';
import { CODE_TTL_MS, issueCode } from './authorization-codes.ts';
import type { ResolvedClient } from './client-metadata-documents.ts';
import { consentPage } from './consent-page.ts';
import {
  CONSENT_REQUEST_TTL_MS,
  openConsentRequest,
  type PendingAuthorization,
  sealConsentRequest,
} from './consent-request.ts';
import { approveConsent } from './consents.ts';
import { problemPage } from './html-page.ts';
import { memberReach } from './member-reach.ts';
import { auditOAuth, type OAuthContext } from './oauth-context.ts';
import { OAuthError, type OAuthErrorCode } from './oauth-error.ts';
import { type OAuthReply, redirectReply } from './oauth-reply.ts';
import { passwordStampOf } from './passwords.ts';
import { isCodeChallenge } from './pkce.ts';
import { redirectUriMatches } from './redirect-uris.ts';
import { authorizationResponseUrl } from './redirects.ts';
import { sameSecret } from './same-secret.ts';
import { SIGN_IN_REFUSED, signIn } from './sign-in.ts';

/** The longest `state` taken: it is sent back, and carried in the page. */
export const MAX_STATE_LENGTH = 1024;
const SINGLE_VALUED = [
  'client_id',
  'redirect_uri',
  'response_type',
  'state',
  'scope',
  'code_challenge',
  'code_challenge_method',
  'resource',
] as const;

/**
 * Marks a request decided (`approved` or `denied`), so its form decides once;
 * approving takes it only after a member signed in.
 */
const decidedKey = (id: string) => `oauth:consent-decided:${id}`;
type Decision = 'approved' | 'denied';
/** One cookie per pending request, so two sign-ins in two tabs do not undo each other. */
export const csrfCookieName = (requestId: string) =>
  `portcullis_csrf_${sha256Hex(requestId).slice(0, 12)}`;

export async function authorize(ctx: OAuthContext, query: URLSearchParams): Promise<OAuthReply> {
  const clientId = query.get('client_id');
  if (!clientId)
    return problemPage(400, 'Cannot connect', 'The request names no client (client_id).');
  let client: ResolvedClient;
  try {
    client = await ctx.clients.resolve(clientId);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    await auditOAuth(ctx, {
      action: 'oauth.authorize',
      decision: 'denied',
      outcome: null,
      reason: 'unauthenticated',
      subject: error.error,
    });
    return problemPage(400, 'Unknown client', error.message);
  }
  const redirectUri = query.get('redirect_uri');
  if (
    !redirectUri ||
    query.getAll('redirect_uri').length !== 1 ||
    !client.redirectUris.some((registered) => redirectUriMatches(registered, redirectUri)) ||
    !ctx.allowlist.allows(redirectUri)
  ) {
    await auditOAuth(ctx, {
      action: 'oauth.authorize',
      decision: 'denied',
      outcome: null,
      reason: 'invalid_input',
      subject: 'invalid_redirect_uri',
    });
    return problemPage(
      400,
      'Cannot connect',
      'redirect_uri: the request must name exactly one of the redirect URIs this client registered.',
    );
  }

  const given = query.get('state') ?? undefined;
  const state = given !== undefined && given.length > MAX_STATE_LENGTH ? undefined : given;
  const back = (error: OAuthErrorCode, description: string) =>
    redirectReply(
      authorizationResponseUrl(redirectUri, {
        error,
        error_description: description,
        state,
        iss: ctx.issuer,
      }),
    );
  if (state !== given)
    return back('invalid_request', `state: longer than ${MAX_STATE_LENGTH} characters`);

  const repeated = SINGLE_VALUED.find((name) => query.getAll(name).length > 1);
  if (repeated) return back('invalid_request', `${repeated}: given more than once`);
  if (query.get('response_type') !== 'code') {
    return back('unsupported_response_type', 'response_type: only code is supported');
  }
  const codeChallenge = query.get('code_challenge');
  if (!codeChallenge || !isCodeChallenge(codeChallenge)) {
    return back(
      'invalid_request',
      'code_challenge: PKCE is required (a 43-character S256 challenge)',
    );
  }
  if (query.get('code_challenge_method') !== 'S256') {
    return back('invalid_request', 'code_challenge_method: only S256 is supported');
  }
  const parsed = parseScope(query.get('scope') ?? undefined);
  if ('unknown' in parsed)
    return back('invalid_scope', `scope: ${parsed.unknown} is not a scope this server knows`);
  // Asking for nothing is asking for the workspace's default (PORTCULLIS_OAUTH_DEFAULT_SCOPES).
  const scopes = parsed.scopes.length > 0 ? parsed.scopes : [...ctx.defaultScopes];
  const resource = query.get('resource') ?? ctx.resources.default;
  if (ctx.resources.pathOf(resource) === undefined) {
    return back('invalid_target', 'resource: not an MCP endpoint of this server');
  }

  const csrf = randomBytes(32).toString('base64url');
  const pending: PendingAuthorization = {
    clientId: client.id,
    clientName: client.name,
    clientKind: client.kind,
    redirectUri,
    state,
    scopes,
    resource,
    codeChallenge,
    csrfHash: sha256Hex(csrf),
  };
  let id: string;
  let sealed: string;
  try {
    ({ id, sealed } = await sealConsentRequest(ctx, pending));
  } catch (error) {
    // A signing key the master key cannot open: said as RFC 6749 says it, as the token endpoint does.
    if (!(error instanceof GatewayError)) throw error;
    return back('server_error', 'the authorization server cannot sign anyone in now');
  }
  const page = consentPage({ request: sealed, csrf, ...viewOf(ctx, pending) });
  page.headers['Set-Cookie'] = csrfCookie(ctx, id, csrf);
  return page;
}

export interface ConsentForm {
  request?: string | undefined;
  csrf?: string | undefined;
  member?: string | undefined;
  password?: string | undefined;
  decision?: string | undefined;
  /** The permissions the person left checked (one `scope` field each). */
  scopes?: readonly string[] | undefined;
}

export async function decide(
  ctx: OAuthContext,
  form: ConsentForm,
  cookies: Readonly<Record<string, string>>,
  address: string,
): Promise<OAuthReply> {
  const sealed = form.request ?? '';
  const request = sealed === '' ? undefined : await openConsentRequest(ctx, sealed);
  if (request === undefined) return expired();
  const { pending } = request;
  const csrf = form.csrf ?? '';
  if (
    !sameSecret(sha256Hex(csrf), pending.csrfHash) ||
    !sameSecret(cookies[csrfCookieName(request.id)] ?? '', csrf)
  ) {
    await auditOAuth(ctx, {
      action: 'oauth.consent',
      decision: 'denied',
      outcome: null,
      reason: 'invalid_input',
      subject: 'csrf',
    });
    return problemPage(
      403,
      'Cannot accept this form',
      'The form did not come from this page (its CSRF token does not match).',
    );
  }
  const back = (params: Record<string, string | undefined>) =>
    redirectReply(
      authorizationResponseUrl(pending.redirectUri, {
        ...params,
        state: pending.state,
        iss: ctx.issuer,
      }),
      303,
    );

  // A request decided already is spent: nothing more is taken from its form.
  const decided = await ctx.state.get(decidedKey(request.id));
  if (decided !== undefined) return spent(ctx, pending, decided);
  // Kept only until the request would expire anyway.
  const left = Math.max(1, request.expiresAt - ctx.now().getTime());
  if (form.decision === 'deny') {
    if (!(await ctx.state.add(decidedKey(request.id), 'denied' satisfies Decision, left)))
      return spent(ctx, pending, await ctx.state.get(decidedKey(request.id)));
    await auditOAuth(ctx, {
      action: 'oauth.consent.deny',
      subject: pending.clientId.slice(0, 200),
    });
    return back({ error: 'access_denied', error_description: 'the person denied the request' });
  }
  const reviewing = pending.memberId !== undefined;
  if (form.decision !== 'approve' && (form.decision !== 'review' || reviewing))
    return again(ctx, pending, sealed, csrf, form, 400, 'Choose Approve or Deny.');
  // What the person approved: the asked-for permissions they left checked, never one more.
  const approved = pending.scopes.filter((scope) => form.scopes?.includes(scope));
  if (approved.length === 0)
    return again(ctx, pending, sealed, csrf, form, 400, 'Check at least one permission, or Deny.');

  // Signed in on the first step (the sealed request names them), or now, by name and password.
  let member: Member;
  let passwordStamp: string;
  if (reviewing) {
    const found = await ctx.store.oauth.members.byName(pending.memberName ?? '');
    // Removed, or their password changed since they signed in on the first step.
    if (
      found === undefined ||
      found.id !== pending.memberId ||
      pending.memberPasswordStamp !== passwordStampOf(found.passwordHash)
    )
      return expired();
    const { passwordHash, ...rest } = found;
    member = rest;
    passwordStamp = passwordStampOf(passwordHash);
  } else {
    const signedIn = await signIn(ctx, form.member, form.password, address);
    if ('refused' in signedIn) {
      const { status, text } = SIGN_IN_REFUSED[signedIn.refused];
      return again(ctx, pending, sealed, csrf, form, status, text);
    }
    ({ member, passwordStamp } = signedIn);
  }
  if (form.decision === 'review') {
    // The review step: what the client will reach with each scope, before the member approves.
    const signedInAs = {
      ...pending,
      memberId: member.id,
      memberName: member.name,
      memberPasswordStamp: passwordStamp,
    };
    const { sealed: resealed } = await sealConsentRequest(
      ctx,
      signedInAs,
      request.id,
      request.expiresAt,
    );
    return consentPage({
      request: resealed,
      csrf,
      ...viewOf(ctx, pending),
      chosen: approved,
      review: {
        member: member.name,
        reach: await memberReach(ctx.store, member, pending.scopes),
        stepUp: await ctx.clients.stepUpOf(pending.clientId),
      },
    });
  }
  // Taken only once a member signed in; one taken meanwhile (another tab) wins.
  if (!(await ctx.state.add(decidedKey(request.id), 'approved' satisfies Decision, left)))
    return spent(ctx, pending, await ctx.state.get(decidedKey(request.id)));
  let consent: Awaited<ReturnType<typeof approveConsent>>;
  try {
    consent = await approveConsent(
      ctx,
      member,
      {
        id: pending.clientId,
        name: pending.clientName,
        redirectUris: [pending.redirectUri],
        kind: pending.clientKind,
      },
      approved,
    );
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return back({ error: error.error, error_description: error.message });
  }
  const code = await issueCode(ctx.state, {
    clientId: pending.clientId,
    redirectUri: pending.redirectUri,
    codeChallenge: pending.codeChallenge,
    resource: pending.resource,
    scopes: approved,
    consentId: consent.id,
    agentId: consent.agentId,
    workspaceId: consent.workspaceId,
    memberId: member.id,
    expiresAt: ctx.now().getTime() + CODE_TTL_MS,
  });
  return back({ code });
}

function viewOf(ctx: OAuthContext, pending: PendingAuthorization) {
  return {
    gateway: new URL(ctx.issuer).host,
    clientName: pending.clientName,
    clientKind: pending.clientKind,
    clientId: pending.clientId,
    redirectUri: pending.redirectUri,
    scopes: pending.scopes,
  };
}

/** The page once more, with what went wrong and the name the person typed (never the password). */
async function again(
  ctx: OAuthContext,
  pending: PendingAuthorization,
  request: string,
  csrf: string,
  form: ConsentForm,
  status: number,
  error: string,
): Promise<OAuthReply> {
  // On the review step, the review again: the member signed in already.
  const found =
    pending.memberName === undefined
      ? undefined
      : await ctx.store.oauth.members.byName(pending.memberName);
  const review =
    found === undefined || found.id !== pending.memberId
      ? undefined
      : {
          member: found.name,
          reach: await memberReach(ctx.store, found, pending.scopes),
          stepUp: await ctx.clients.stepUpOf(pending.clientId),
        };
  return consentPage(
    {
      request,
      csrf,
      ...viewOf(ctx, pending),
      chosen: form.scopes ?? [],
      member: (form.member ?? '').slice(0, 100),
      error,
      ...(review === undefined ? {} : { review }),
    },
    status,
  );
}

/** A form posted again after its request was decided: refused, audited, said on a page. */
async function spent(
  ctx: OAuthContext,
  pending: PendingAuthorization,
  decided: string | undefined,
): Promise<OAuthReply> {
  await auditOAuth(ctx, {
    action: 'oauth.consent',
    decision: 'denied',
    outcome: null,
    reason: 'consent_decided',
    subject: pending.clientId.slice(0, 200),
  });
  const how = decided === 'denied' ? 'denied' : 'approved';
  return problemPage(
    REASONS.consent_decided.status,
    'This request was already answered',
    `This request to connect ${pending.clientName.slice(0, 100)} was already ${how}: a request is answered once, and nothing more is taken from it. To connect, start again from the app.`,
  );
}

function expired(): OAuthReply {
  return problemPage(
    400,
    'This sign-in has expired',
    'This request has expired or was already used.',
  );
}

function csrfCookie(ctx: OAuthContext, requestId: string, csrf: string): string {
  const secure = ctx.secureCookies ? '; Secure' : '';
  return `${csrfCookieName(requestId)}=${csrf}; Path=/oauth/authorize; Max-Age=${CONSENT_REQUEST_TTL_MS / 1000}; HttpOnly; SameSite=Strict${secure}`;
}
