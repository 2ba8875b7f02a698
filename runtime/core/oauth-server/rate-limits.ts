/**
 * Fixed-window attempt counters in the shared state, so every replica counts
 * together: failed sign-ins per member name and per address, registrations per address.
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

/** Whether every limit still has room, counting nothing (sign-in: only failures count). */
export async function hasRoom(
  state: SharedState,
  attempts: ReadonlyArray<{ limit: Limit; subject: string }>,
): Promise<boolean> {
  for (const { limit, subject } of attempts) {
    if (Number((await state.get(keyOf(limit, subject))) ?? 0) >= limit.max) return false;
  }
  return true;
}

/** Counts one attempt against each limit; true when every one is still within its maximum. */
export async function withinLimits(
  state: SharedState,
  attempts: ReadonlyArray<{ limit: Limit; subject: string }>,
): Promise<boolean> {
  let within = true;
  for (const { limit, subject } of attempts) {
    // Hashed: a member name or an address is no key to keep in the clear.
    const count = await state.increment(
      `oauth:rate:${limit.name}:${sha256Hex(subject)}`,
      limit.windowMs,
    );
    if (count > limit.max) within = false;
  }
  return within;
}
