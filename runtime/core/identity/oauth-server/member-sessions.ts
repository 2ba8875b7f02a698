/**
 * A member's browser session on this gateway's own pages, after they signed
 * in with name and password (`sign-in.ts`): 10 minutes in the shared state
 * (or as long as the page asks) under the hash of a random id, which goes
 * back to the browser as an HttpOnly cookie scoped to the page's path. A page
 * may renew it on activity (the console: sliding, within a cap from when it
 * opened). A session ends on sign-out, when its member is removed, and when
 * their password changes: every look-up finds the member again and compares
 * the stamp of the password the session was opened with (`passwordStampOf`),
 * so a session opened with an old password ends on every replica at its next
 * request (sessions are in the shared state, members in the store).
 */
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../../../generated/catalog-rules.ts';
import type { Member } from '../../model/oauth.ts';
import type { OAuthContext } from './oauth-context.ts';
import { passwordStampOf } from './passwords.ts';
import type { SignedIn } from './sign-in.ts';

export const MEMBER_SESSION_TTL_MS = 10 * 60_000;
const sessionKey = (id: string) => `oauth:member-session:${sha256Hex(id)}`;

export interface MemberSession {
  memberId: string;
  memberName: string;
  /** The token the session's own forms carry. */
  csrf: string;
  /** When it opened (ms since the epoch): a renewed session ends a fixed time after it. */
  openedAt?: number;
  /** The stamp of the password it was opened with: another password ends it. */
  passwordStamp?: string;
}

/** Keeps a new session for the member; answers its id (the cookie's value) and the session. */
export async function openMemberSession(
  ctx: Pick<OAuthContext, 'state' | 'now'>,
  { member, passwordStamp }: SignedIn,
  ttlMs: number = MEMBER_SESSION_TTL_MS,
): Promise<{ id: string; session: MemberSession }> {
  const id = randomBytes(32).toString('base64url');
  const session: MemberSession = {
    memberId: member.id,
    memberName: member.name,
    csrf: randomBytes(32).toString('base64url'),
    openedAt: ctx.now().getTime(),
    passwordStamp,
  };
  await ctx.state.set(sessionKey(id), JSON.stringify(session), ttlMs);
  return { id, session };
}

/**
 * The session a cookie names, while it lives, its member still exists and
 * still has the password it was opened with (a session from before sessions
 * kept the stamp ends too: nothing says which password opened it).
 */
export async function memberSessionOf(
  ctx: Pick<OAuthContext, 'state' | 'store'>,
  id: string | undefined,
): Promise<{ session: MemberSession; member: Member } | undefined> {
  if (!id) return undefined;
  const text = await ctx.state.get(sessionKey(id));
  if (text === undefined) return undefined;
  const session = JSON.parse(text) as MemberSession;
  const found = await ctx.store.oauth.members.byName(session.memberName);
  if (
    found?.id !== session.memberId ||
    session.passwordStamp !== passwordStampOf(found.passwordHash)
  ) {
    await ctx.state.delete(sessionKey(id));
    return undefined;
  }
  const { passwordHash: _, ...member } = found;
  return { session, member };
}

/**
 * Keeps a live session `idleMs` longer from now, never past `maxMs` after it
 * opened: answers how long it lives now, or undefined when it has ended (a
 * session past its cap is deleted; one signed out meanwhile is not brought
 * back: only a key that still exists gets the new TTL).
 */
export async function renewMemberSession(
  ctx: Pick<OAuthContext, 'state' | 'now'>,
  id: string,
  session: MemberSession,
  idleMs: number,
  maxMs: number,
): Promise<number | undefined> {
  const now = ctx.now().getTime();
  // A session opened before sessions said when: its cap counts from now.
  const left = (session.openedAt ?? now) + maxMs - now;
  if (left <= 0) {
    await ctx.state.delete(sessionKey(id));
    return undefined;
  }
  const ttlMs = Math.min(idleMs, left);
  return (await ctx.state.touch(sessionKey(id), ttlMs)) ? ttlMs : undefined;
}

export async function endMemberSession(
  ctx: Pick<OAuthContext, 'state'>,
  id: string | undefined,
): Promise<void> {
  await ctx.state.delete(sessionKey(id ?? ''));
}
