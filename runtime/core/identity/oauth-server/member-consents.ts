/**
 * `/oauth/consents`: a member revokes an app they connected, without asking
 * an operator. GET shows the sign-in form (or, signed in, the list); POST
 * takes one of three actions:
 *
 * - `sign-in`: the form's CSRF token must equal its cookie (so no other site
 *   signs a person in as someone else); name and password are checked as on
 *   the consent page, against the same limits. A session of 10 minutes is
 *   kept in the shared state under the hash of a random id, which goes back
 *   as an HttpOnly, SameSite=Strict cookie scoped to this path.
 * - `revoke`: the session's own CSRF token must come with the form; only the
 *   member's own active consent can be named. It is revoked with its token
 *   families exactly as `portcullis oauth revoke` does, and audited as the member's act.
 * - `sign-out`: the session ends.
 *
 * A session ends too when its member is removed or their password changes: every request looks the
 * member up again.
 */
import { randomBytes } from 'node:crypto';
import { auditEvent } from '../../governance/audit-event.ts';
import type { Consent, Member } from '../../model/oauth.ts';
import { consentListPage, MEMBER_CONSENTS_PATH, signInPage } from './member-consents-page.ts';
import {
  endMemberSession,
  MEMBER_SESSION_TTL_MS,
  type MemberSession,
  memberSessionOf,
  openMemberSession,
} from './member-sessions.ts';
import { auditOAuth, type OAuthContext } from './oauth-context.ts';
import { appendCookie, type OAuthReply } from './oauth-reply.ts';
import { sameSecret } from './same-secret.ts';
import { SIGN_IN_REFUSED, signIn } from './sign-in.ts';

const SESSION_TTL_MS = MEMBER_SESSION_TTL_MS;
const SESSION_COOKIE = 'portcullis_member';
const SIGN_IN_COOKIE = 'portcullis_member_csrf';

export interface MemberConsentsForm {
  action?: string | undefined;
  csrf?: string | undefined;
  member?: string | undefined;
  password?: string | undefined;
  consent?: string | undefined;
}

type Cookies = Readonly<Record<string, string>>;

export async function showMemberConsents(ctx: OAuthContext, cookies: Cookies): Promise<OAuthReply> {
  const signedIn = await sessionOf(ctx, cookies);
  if (signedIn) return listFor(ctx, signedIn.session, signedIn.member);
  return freshSignIn(ctx, {});
}

export async function actOnMemberConsents(
  ctx: OAuthContext,
  form: MemberConsentsForm,
  cookies: Cookies,
  address: string,
): Promise<OAuthReply> {
  if (form.action === 'sign-in') return signInAs(ctx, form, cookies, address);
  const signedIn = await sessionOf(ctx, cookies);
  if (!signedIn) {
    return freshSignIn(ctx, { error: 'Your sign-in has expired. Sign in again.' }, 401);
  }
  const { session, member } = signedIn;
  if (!sameSecret(form.csrf ?? '', session.csrf)) {
    await endMemberSession(ctx, cookies[SESSION_COOKIE]);
    return freshSignIn(
      ctx,
      { error: 'The form did not come from this page (its CSRF token does not match).' },
      403,
    );
  }
  if (form.action === 'sign-out') {
    await endMemberSession(ctx, cookies[SESSION_COOKIE]);
    await auditOAuth(ctx, { action: 'oauth.sign_out', ...asMember(member) });
    const reply = await freshSignIn(ctx, { notice: 'You are signed out.' });
    appendCookie(reply, `${SESSION_COOKIE}=; ${cookieAttributes(ctx, 0)}`);
    return reply;
  }
  if (form.action === 'revoke') return revokeOwn(ctx, session, member, form.consent ?? '');
  return listFor(ctx, session, member, { error: 'Choose an app to revoke.' }, 400);
}

async function signInAs(
  ctx: OAuthContext,
  form: MemberConsentsForm,
  cookies: Cookies,
  address: string,
): Promise<OAuthReply> {
  const typed = (form.member ?? '').slice(0, 100);
  if (!sameSecret(form.csrf ?? '', cookies[SIGN_IN_COOKIE] ?? '')) {
    return freshSignIn(
      ctx,
      { member: typed, error: 'The form did not come from this page. Try again.' },
      403,
    );
  }
  const result = await signIn(ctx, form.member, form.password, address);
  if ('refused' in result) {
    const { status, text } = SIGN_IN_REFUSED[result.refused];
    return freshSignIn(ctx, { member: typed, error: text }, status);
  }
  const { id, session } = await openMemberSession(ctx, result);
  await auditOAuth(ctx, { action: 'oauth.sign_in', ...asMember(result.member) });
  const reply = await listFor(ctx, session, result.member);
  appendCookie(reply, `${SESSION_COOKIE}=${id}; ${cookieAttributes(ctx, SESSION_TTL_MS)}`);
  return reply;
}

async function revokeOwn(
  ctx: OAuthContext,
  session: MemberSession,
  member: Member,
  consentId: string,
): Promise<OAuthReply> {
  const consent = consentId === '' ? undefined : await ctx.store.oauth.consents.byId(consentId);
  if (consent?.memberId !== member.id || consent.status !== 'active') {
    return listFor(ctx, session, member, { error: 'You have no such app connected.' }, 404);
  }
  const at = ctx.now().toISOString();
  await ctx.store.transaction(async (tx) => {
    await tx.oauth.consents.revoke(consent.id, at);
    await tx.audit.append(
      auditEvent({
        at,
        ...asMember(member),
        action: 'oauth.consent.revoke',
        subject: consent.id,
        decision: 'allowed',
        outcome: 'ok',
      }),
    );
  });
  return listFor(ctx, session, member, { notice: `${consent.clientName} no longer acts for you.` });
}

async function listFor(
  ctx: OAuthContext,
  session: MemberSession,
  member: Member,
  message: { error?: string; notice?: string } = {},
  status = 200,
): Promise<OAuthReply> {
  const consents = (await ctx.store.oauth.consents.list(member.workspaceId)).filter(
    (consent: Consent) => consent.memberId === member.id && consent.status === 'active',
  );
  return consentListPage(
    { csrf: session.csrf, memberName: member.name, consents, ...message },
    status,
  );
}

/** The sign-in form with a new CSRF token in its field and its cookie. */
async function freshSignIn(
  ctx: OAuthContext,
  view: { member?: string; error?: string; notice?: string },
  status = 200,
): Promise<OAuthReply> {
  const csrf = randomBytes(32).toString('base64url');
  const reply = signInPage({ csrf, ...view }, status);
  appendCookie(reply, `${SIGN_IN_COOKIE}=${csrf}; ${cookieAttributes(ctx, SESSION_TTL_MS)}`);
  return reply;
}

/** The session the cookie names, while it lives and its member still exists. */
function sessionOf(
  ctx: OAuthContext,
  cookies: Cookies,
): Promise<{ session: MemberSession; member: Member } | undefined> {
  return memberSessionOf(ctx, cookies[SESSION_COOKIE]);
}

function asMember(member: Member) {
  return { actorKind: 'member' as const, actorId: member.id, workspaceId: member.workspaceId };
}

function cookieAttributes(ctx: OAuthContext, maxAgeMs: number): string {
  const secure = ctx.secureCookies ? '; Secure' : '';
  return `Path=${MEMBER_CONSENTS_PATH}; Max-Age=${maxAgeMs / 1000}; HttpOnly; SameSite=Strict${secure}`;
}
