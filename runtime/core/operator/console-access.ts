/**
 * Who may use the console and what they may change, decided here for every
 * request the console's API answers: a member signs in with name and
 * password (the consent page's sign-in, its limits and its audit) and keeps
 * a session; `owner`, `operator` and `viewer` may read their own workspace,
 * `owner` and `operator` may change it; a `member` is sent to the consent
 * pages. A change must carry the session's CSRF token in a header and, when
 * the browser names one, come from the gateway's own origin; a change a
 * role does not allow is audited as denied (`console.change`); members are
 * changed by owners only. Every request renews the session (`ttlMs`, what the
 * cookie's `Max-Age` says). A member acts as `member:<id>`, so every verb
 * audits them as its actor.
 */
import { GatewayError } from '../base/errors.ts';
import { auditEvent } from '../governance/audit-event.ts';
import type { MemberSignIns } from '../identity/oauth-server/member-sign-ins.ts';
import { sameSecret } from '../identity/oauth-server/same-secret.ts';
import { SIGN_IN_REFUSED } from '../identity/oauth-server/sign-in.ts';
import type { Member, MemberRole } from '../model/oauth.ts';
import { MEMBER_ACTOR, type OperatorContext } from './context.ts';

/**
 * A console session ends after 30 minutes without a request, each request
 * renewing it, and 8 hours after the sign-in (a working day) however busy;
 * sign-out ends it at once.
 */
export const CONSOLE_SESSION_IDLE_MS = 30 * 60_000;
export const CONSOLE_SESSION_MAX_MS = 8 * 3_600_000;
export const CONSOLE_COOKIE = 'portcullis_console';
export const CONSOLE_PATH = '/console';
/** The header the console's pages send the session's CSRF token in. */
export const CSRF_HEADER = 'x-portcullis-csrf';

const READERS: readonly MemberRole[] = ['owner', 'operator', 'viewer'];
const CHANGERS: readonly MemberRole[] = ['owner', 'operator'];
const OWNERS: readonly MemberRole[] = ['owner'];

/** A signed-in member of the console, and the token their changes carry. */
export interface ConsoleSession {
  member: Member;
  csrf: string;
  /** What the operator verbs audit them as. */
  actor: string;
  /** How long the session lives from now, renewed by this request. */
  ttlMs: number;
}

export interface ConsoleRequest {
  sessionId: string | undefined;
  /** The CSRF header's value. */
  csrf: string | undefined;
  /** The `Origin` header, if the browser sent one. */
  origin: string | undefined;
  /** What the request asks for (`POST /agents`), as a refusal's audit event names it. */
  what: string;
}

export class ConsoleAccess {
  readonly #members: MemberSignIns;
  readonly #origin: string;
  readonly #audit: Pick<OperatorContext, 'store' | 'now'>;

  /**
   * `issuer`: the gateway's public URL, whose origin the console's pages come
   * from; `audit`: where a change refused for its role is recorded.
   */
  constructor(
    members: MemberSignIns,
    issuer: string,
    audit: Pick<OperatorContext, 'store' | 'now'>,
  ) {
    this.#members = members;
    this.#origin = new URL(issuer).origin;
    this.#audit = audit;
  }

  get secureCookies(): boolean {
    return this.#members.secureCookies;
  }

  /**
   * Signs a member in (same limits and audit as the consent page). A member
   * whose role is `member` gets no session: the console is not theirs.
   */
  async signIn(
    request: Pick<ConsoleRequest, 'origin'>,
    name: unknown,
    password: unknown,
    address: string,
  ): Promise<{ sessionId: string; session: ConsoleSession }> {
    this.#refuseForeignOrigin(request.origin);
    const signedIn = await this.#members.signIn(
      typeof name === 'string' ? name.slice(0, 200) : undefined,
      typeof password === 'string' ? password.slice(0, 1_000) : undefined,
      address,
      CONSOLE_SESSION_IDLE_MS,
    );
    if ('refused' in signedIn) {
      const text = SIGN_IN_REFUSED[signedIn.refused].text;
      throw new GatewayError(signedIn.refused, text, {
        field: signedIn.refused === 'unauthenticated' ? 'password' : 'name',
      });
    }
    try {
      refuseReader(signedIn.member);
    } catch (error) {
      await this.#members.endSession(signedIn.sessionId);
      throw error;
    }
    const session = await this.#sessionOrThrow(signedIn.sessionId);
    return { sessionId: signedIn.sessionId, session };
  }

  /**
   * A console session for a member the company's identity provider signed
   * in (`idp-sign-in.ts`); a member whose role is `member` gets none.
   */
  async sessionFor(member: Member): Promise<string> {
    refuseReader(member);
    return this.#members.openSession(member, CONSOLE_SESSION_IDLE_MS);
  }

  /** The session of a request that reads. */
  async reader(request: ConsoleRequest): Promise<ConsoleSession> {
    const session = await this.#sessionOrThrow(request.sessionId);
    refuseReader(session.member);
    return session;
  }

  /** The session of a request that changes something: its origin, its CSRF token, then the role. */
  changer(request: ConsoleRequest): Promise<ConsoleSession> {
    return this.#change(request, CHANGERS);
  }

  /** The session of a request that changes the workspace's members: an owner's only. */
  owner(request: ConsoleRequest): Promise<ConsoleSession> {
    return this.#change(request, OWNERS);
  }

  async #change(request: ConsoleRequest, roles: readonly MemberRole[]): Promise<ConsoleSession> {
    this.#refuseForeignOrigin(request.origin);
    const session = await this.#sessionOrThrow(request.sessionId);
    if (!sameSecret(request.csrf ?? '', session.csrf))
      throw new GatewayError('console_csrf_refused', undefined, { field: CSRF_HEADER });
    refuseReader(session.member);
    if (!roles.includes(session.member.role)) {
      await this.#audit.store.audit.append(
        auditEvent({
          at: this.#audit.now().toISOString(),
          workspaceId: session.member.workspaceId,
          actorKind: 'member',
          actorId: session.member.id,
          action: 'console.change',
          subject: request.what.slice(0, 200),
          decision: 'denied',
          outcome: null,
          reason: 'console_role_refused',
        }),
      );
      const { name, role } = session.member;
      throw new GatewayError(
        'console_role_refused',
        roles === OWNERS
          ? `${name} is ${role === 'operator' ? 'an' : 'a'} ${role} of this workspace: only owners change its members; an owner can make them one (portcullis member role ${name} owner)`
          : `${name} is a ${role} of this workspace and may not change anything; an owner can make them an operator (portcullis member role ${name} operator)`,
        { field: 'role' },
      );
    }
    return session;
  }

  async signOut(request: ConsoleRequest): Promise<void> {
    this.#refuseForeignOrigin(request.origin);
    await this.#members.endSession(request.sessionId);
  }

  async #sessionOrThrow(sessionId: string | undefined): Promise<ConsoleSession> {
    const found = await this.#members.renewedSession(
      sessionId,
      CONSOLE_SESSION_IDLE_MS,
      CONSOLE_SESSION_MAX_MS,
    );
    if (!found)
      throw new GatewayError('unauthenticated', 'sign in to the console first', {
        field: 'session',
      });
    return { ...found, actor: `${MEMBER_ACTOR}${found.member.id}` };
  }

  #refuseForeignOrigin(origin: string | undefined): void {
    if (origin !== undefined && origin !== this.#origin)
      throw new GatewayError(
        'console_csrf_refused',
        'the request came from another site, not from the console page',
        { field: 'Origin' },
      );
  }
}

function refuseReader(member: Member): void {
  if (!READERS.includes(member.role))
    throw new GatewayError(
      'console_role_refused',
      `${member.name} is a member without a console role: see and revoke your apps at /oauth/consents; an owner can give you a role (portcullis member role ${member.name} viewer)`,
      { field: 'role' },
    );
}
