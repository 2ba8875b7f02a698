/**
 * Telling a concurrent refresh from a replayed one. Two tabs or two replicas
 * of one client may present the same refresh token at once: one rotates it,
 * and the other, within REFRESH_GRACE_MS of the first use, is refused with a
 * plain `invalid_grant` and its family left alone. The same token presented
 * later is a replay (someone has a copy) and revokes the family. The first
 * use is remembered in the shared state, so every replica sees it; it is
 * written before the token rotates, so any use that finds the token rotated
 * finds it too.
 */
import type { SharedState } from '../../ports/shared-state/shared-state.ts';

export const REFRESH_GRACE_MS = 10_000;

const firstUseKey = (tokenHash: string) => `oauth:refresh-first-use:${tokenHash}`;

/** Remembers when a refresh token was first presented (a later presentation leaves the time as it was). */
export async function markFirstUse(state: SharedState, tokenHash: string, at: Date): Promise<void> {
  await state.add(firstUseKey(tokenHash), String(at.getTime()), REFRESH_GRACE_MS);
}

/** Whether a token presented again at `at` is within the grace of its first use (a concurrent refresh). */
export async function isConcurrentUse(
  state: SharedState,
  tokenHash: string,
  at: Date,
): Promise<boolean> {
  const first = await state.get(firstUseKey(tokenHash));
  return first !== undefined && at.getTime() - Number(first) <= REFRESH_GRACE_MS;
}
