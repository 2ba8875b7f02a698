/**
 * A member signs in with name and password, on the consent page or on the
 * page of their own consents: both count attempts against the same limits
 * (per address first, then per member name, in the shared state). Every
 * attempt counts, before its password is checked; a success forgets the
 * count against the member's name (not the address's). Every wrong password
 * is audited; of the attempts a limit refuses, the 1st, 10th, 100th… of its
 * window, with the count, so a flood writes a handful of rows.
 */

import type { Member } from '../../model/oauth.ts';
import { auditOAuth, type OAuthContext } from './oauth-context.ts';
import { passwordMatches, passwordStampOf } from './passwords.ts';
import {
  countAttempt,
  forgetAttempts,
  isAuditedRefusal,
  refusalCount,
  SIGN_IN_PER_ADDRESS,
  SIGN_IN_PER_MEMBER,
} from './rate-limits.ts';

/** A member signed in, and the stamp of the password they signed in with (see `passwordStampOf`). */
export interface SignedIn {
  member: Member;
  passwordStamp: string;
}

export type SignIn = SignedIn | { refused: 'rate_limited' | 'unauthenticated' };

export async function signIn(
  ctx: OAuthContext,
  typedName: string | undefined,
  password: string | undefined,
  address: string,
): Promise<SignIn> {
  const name = (typedName ?? '').trim();
  const byName = { limit: SIGN_IN_PER_MEMBER, subject: name.toLowerCase() };
  // Counted before the password is checked, atomically: concurrent guesses
  // cannot all pass a check made before any of them was counted. The name is
  // charged only for attempts its address was allowed to make.
  const attempt = await countAttempt(ctx.state, [
    { limit: SIGN_IN_PER_ADDRESS, subject: address },
    byName,
  ]);
  if (!attempt.within) {
    if (isAuditedRefusal(attempt.refused)) {
      await auditOAuth(ctx, {
        action: 'oauth.sign_in',
        decision: 'denied',
        outcome: null,
        reason: 'rate_limited',
        ...refusalCount(attempt.refused),
      });
    }
    return { refused: 'rate_limited' };
  }
  const member = name === '' ? undefined : await ctx.store.oauth.members.byName(name);
  // Checked even for an unknown name, so timing does not tell which names exist.
  const matches = await passwordMatches(password ?? '', member?.passwordHash);
  if (!member || !matches) {
    await auditOAuth(ctx, {
      action: 'oauth.sign_in',
      decision: 'denied',
      outcome: null,
      reason: 'unauthenticated',
      ...(member
        ? { actorKind: 'member', actorId: member.id, workspaceId: member.workspaceId }
        : {}),
    });
    return { refused: 'unauthenticated' };
  }
  // Only failures stay counted against the member's name: a person who signs in often is never locked out.
  await forgetAttempts(ctx.state, byName);
  const { passwordHash, ...signedIn } = member;
  return { member: signedIn, passwordStamp: passwordStampOf(passwordHash) };
}

/** What the person is told when sign-in is refused, on either page. */
export const SIGN_IN_REFUSED = {
  rate_limited: {
    status: 429,
    text: 'Too many sign-in attempts. Wait a few minutes and try again.',
  },
  unauthenticated: { status: 401, text: 'The member name or the password is wrong.' },
} as const;
