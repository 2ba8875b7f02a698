/**
 * Fixed-window attempt counters in the shared state, so every replica counts
 * together: sign-in attempts per member name and per address, registrations per address.
 */

import { sha256Hex } from '../../../generated/catalog-rules.ts';
import type { SharedState } from '../state/shared-state.ts';

export interface Limit {
  name: string;
  max: number;
  windowMs: number;
}

export const SIGN_IN_PER_MEMBER: Limit = { name: 'sign-in-member', max: 10, windowMs: 15 * 60_000 };
export const SIGN_IN_PER_ADDRESS: Limit = {
  name: 'sign-in-address',
  max: 30,
  windowMs: 15 * 60_000,
};
export const REGISTRATION_PER_ADDRESS: Limit = { name: 'register', max: 20, windowMs: 60 * 60_000 };

const keyOf = (limit: Limit, subject: string) =>
  // Hashed: a member name or an address is no key to keep in the clear.
  `oauth:rate:${limit.name}:${sha256Hex(subject)}`;

/**
 * Counts one attempt against each limit, before the attempt is made; true
 * when every count is still within its maximum. Atomic per key, so of
 * concurrent attempts only as many as the limit allows get through.
 */
export async function countAttempt(
  state: SharedState,
  attempts: ReadonlyArray<{ limit: Limit; subject: string }>,
): Promise<boolean> {
  let within = true;
  for (const { limit, subject } of attempts) {
    if ((await state.increment(keyOf(limit, subject), limit.windowMs)) > limit.max) within = false;
  }
  return within;
}

/** Forgets the attempts counted for one subject (a member who signed in). */
export async function forgetAttempts(
  state: SharedState,
  attempt: { limit: Limit; subject: string },
): Promise<void> {
  await state.delete(keyOf(attempt.limit, attempt.subject));
}
