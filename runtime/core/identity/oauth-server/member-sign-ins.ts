/**
 * What a page outside `/oauth/*` needs to know who the person in front of it
 * is, as the authorization server knows its members: the member a session
 * cookie names, a sign-in with name and password (the same limits and audit
 * as the consent page's) that keeps a session, and the member an agent acts
 * for when a consent made it (one agent per member and client).
 */

import type { Member } from '../../model/oauth.ts';
import {
  endMemberSession,
  memberSessionOf,
  openMemberSession,
  renewMemberSession,
} from './member-sessions.ts';
import { auditOAuth, type OAuthContext } from './oauth-context.ts';
import { signIn } from './sign-in.ts';

export interface MemberSignIns {
  /** Whether a session cookie needs `Secure` (an https issuer). */
  readonly secureCookies: boolean;
  /** The member a session cookie names, while the session lives. */
  sessionMember(sessionId: string | undefined): Promise<Member | undefined>;
  /** The member and the CSRF token of a session, while it lives. */
  session(sessionId: string | undefined): Promise<{ member: Member; csrf: string } | undefined>;
  /**
   * The member and the CSRF token of a live session, renewed on this use: it
   * lives `idleMs` more (`ttlMs`), never past `maxMs` after the sign-in.
   */
  renewedSession(
    sessionId: string | undefined,
    idleMs: number,
    maxMs: number,
  ): Promise<{ member: Member; csrf: string; ttlMs: number } | undefined>;
  /** Ends a session (sign-out). */
  endSession(sessionId: string | undefined): Promise<void>;
  /** `ttlMs`: how long the session lives (10 minutes unless a page asks for longer). */
  signIn(
    name: string | undefined,
    password: string | undefined,
    address: string,
    ttlMs?: number,
  ): Promise<
    { sessionId: string; member: Member } | { refused: 'rate_limited' | 'unauthenticated' }
  >;
  /** The member a consent made this agent for; undefined for an agent made by an operator. */
  memberOfAgent(workspaceId: string, agentId: string): Promise<Member | undefined>;
}

export function memberSignIns(ctx: OAuthContext): MemberSignIns {
  return {
    secureCookies: ctx.secureCookies,
    async sessionMember(sessionId) {
      return (await memberSessionOf(ctx, sessionId))?.member;
    },
    async session(sessionId) {
      const found = await memberSessionOf(ctx, sessionId);
      return found && { member: found.member, csrf: found.session.csrf };
    },
    async renewedSession(sessionId, idleMs, maxMs) {
      const found = await memberSessionOf(ctx, sessionId);
      if (!found || !sessionId) return undefined;
      const ttlMs = await renewMemberSession(ctx, sessionId, found.session, idleMs, maxMs);
      return ttlMs === undefined
        ? undefined
        : { member: found.member, csrf: found.session.csrf, ttlMs };
    },
    async endSession(sessionId) {
      await endMemberSession(ctx, sessionId);
    },
    async signIn(name, password, address, ttlMs) {
      const result = await signIn(ctx, name, password, address);
      if ('refused' in result) return result;
      const { id } = await openMemberSession(ctx, result, ttlMs);
      await auditOAuth(ctx, {
        action: 'oauth.sign_in',
        actorKind: 'member',
        actorId: result.member.id,
        workspaceId: result.member.workspaceId,
      });
      return { sessionId: id, member: result.member };
    },
    async memberOfAgent(workspaceId, agentId) {
      const consents = await ctx.store.oauth.consents.list(workspaceId);
      const made = consents.find((consent) => consent.agentId === agentId);
      if (!made) return undefined;
      const members = await ctx.store.oauth.members.list(workspaceId);
      return members.find((member) => member.id === made.memberId);
    },
  };
}
