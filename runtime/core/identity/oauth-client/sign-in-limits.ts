/**
 * How many sign-ins may wait between their link and the callback, so an
 * agent looping on a call that needs its person's sign-in cannot fill the
 * table: while an unopened link of the same credential, started by the same
 * actor, lives on (with a minute to spare), the call answers that link again
 * instead of minting one; past that, at most `PER_CREDENTIAL` live sign-ins
 * per credential (a connection's shared one, or an agent's personal one) and
 * `PER_WORKSPACE` per workspace, operators' included, else
 * `oauth_sign_ins_exceeded`. Expired ones stop counting (and are pruned).
 */
import { GatewayError } from '../../base/errors.ts';
import type { StoredSignIn } from '../../model/sign-in.ts';

export const SIGN_IN_LIMITS = {
  perCredential: 5,
  perWorkspace: 100,
  /** A link answered again keeps at least this long to live. */
  reuseMarginMs: 60_000,
} as const;

export interface Credential {
  connectionId: string;
  /** null: the connection's shared credential. */
  agentId: string | null;
}

/** The unopened sign-in `actor` started for this credential that can be shown again, if any. */
export function reusableSignIn(
  live: readonly StoredSignIn[],
  credential: Credential,
  actor: string,
  now: Date,
): StoredSignIn | undefined {
  const until = new Date(now.getTime() + SIGN_IN_LIMITS.reuseMarginMs).toISOString();
  return live.find(
    (signIn) =>
      sameCredential(signIn, credential) &&
      signIn.actor === actor &&
      signIn.browserHash === null &&
      signIn.expiresAt > until,
  );
}

/** Refuses one more sign-in past either cap. */
export function refuseOverLimits(
  live: readonly StoredSignIn[],
  credential: Credential,
  connectionName: string,
): void {
  const mine = live.filter((signIn) => sameCredential(signIn, credential)).length;
  if (mine >= SIGN_IN_LIMITS.perCredential)
    throw new GatewayError(
      'oauth_sign_ins_exceeded',
      `${connectionName}: ${mine} sign-ins of this credential are waiting already; finish one or let it expire (10 minutes)`,
      { field: 'connection', detail: { connection: connectionName, limit: 'credential' } },
    );
  if (live.length >= SIGN_IN_LIMITS.perWorkspace)
    throw new GatewayError(
      'oauth_sign_ins_exceeded',
      `${live.length} sign-ins are waiting in this workspace already; finish one or let it expire (10 minutes)`,
      { field: 'connection', detail: { connection: connectionName, limit: 'workspace' } },
    );
}

function sameCredential(signIn: StoredSignIn, credential: Credential): boolean {
  return signIn.connectionId === credential.connectionId && signIn.agentId === credential.agentId;
}
