/**
 * Fixed-window attempt counters in the shared state, so every replica counts
 * together: sign-in attempts per address and per member name, registrations
 * per address. A refused flood is counted, not recorded request by request:
 * the counter that refused says how many it refused in its window, and only
 * the 1st, 10th, 100th… refusal of a window is worth an audit row.
 */

import { sha256Hex } from '../../../../generated/catalog-rules.ts';
import type { SharedState } from '../../ports/shared-state/shared-state.ts';

export interface Limit {
  name: string;
  max: number;
  windowMs: number;
}

/**
 * Sign-in attempts are slowed per address first: one address can never make
 * enough attempts to lock a name, so a member is not kept out by someone
 * guessing from elsewhere. The lock on a name is the last line, against
 * guesses spread over many addresses.
 */
export const SIGN_IN_PER_ADDRESS: Limit = {
  name: 'sign-in-address',
  max: 30,
  windowMs: 15 * 60_000,
};
export const SIGN_IN_PER_MEMBER: Limit = {
  name: 'sign-in-member',
  max: 100,
  windowMs: 15 * 60_000,
};
export const REGISTRATION_PER_ADDRESS: Limit = { name: 'register', max: 20, windowMs: 60 * 60_000 };

export type Attempt =
  | { within: true }
  /** `refused`: how many attempts this limit has refused in its window, this one included. */
  | { within: false; limit: Limit; refused: number };

const keyOf = (limit: Limit, subject: string) =>
  // Hashed: a member name or an address is no key to keep in the clear.
  `oauth:rate:${limit.name}:${sha256Hex(subject)}`;

/**
 * Counts one attempt against each limit in turn, before the attempt is made,
 * and stops at the first limit it exceeds: the limits after it are not
 * charged for an attempt that was never made. Atomic per key, so of
 * concurrent attempts only as many as the limit allows get through.
 */
export async function countAttempt(
  state: SharedState,
  attempts: ReadonlyArray<{ limit: Limit; subject: string }>,
): Promise<Attempt> {
  for (const { limit, subject } of attempts) {
    const count = await state.increment(keyOf(limit, subject), limit.windowMs);
    if (count > limit.max) return { within: false, limit, refused: count - limit.max };
  }
  return { within: true };
}

/** Whether a refusal is one to audit: the 1st, 10th, 100th… of its window (the count goes with it). */
export function isAuditedRefusal(refused: number): boolean {
  return refused === 1 || 10 ** Math.round(Math.log10(refused)) === refused;
}

/** The audit subject of a refusal past the first: how many the window refused so far. */
export function refusalCount(refused: number): { subject?: string } {
  return refused === 1 ? {} : { subject: `${refused} refused in this window` };
}

/** Forgets the attempts counted for one subject (a member who signed in). */
export async function forgetAttempts(
  state: SharedState,
  attempt: { limit: Limit; subject: string },
): Promise<void> {
  await state.delete(keyOf(attempt.limit, attempt.subject));
}
