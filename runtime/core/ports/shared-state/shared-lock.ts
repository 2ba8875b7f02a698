/**
 * A short lock in the shared state, for work only one replica may do at a
 * time (refreshing one upstream credential). Taken with `add` (of
 * concurrent takers exactly one wins), released with `compareAndSet` from
 * the holder's own token (a holder whose lock expired and was taken by
 * another never releases that other's), and gone by itself after `ttlMs`
 * when its holder died. A taker that finds it held waits, polling, up to
 * `waitMs`, then fails with `state_unavailable`.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError } from '../../base/errors.ts';
import type { SharedState } from './shared-state.ts';

export interface LockOptions {
  /** How long the lock lives if its holder never releases it. */
  ttlMs: number;
  /** How long a taker waits for a held lock. Default: `ttlMs`. */
  waitMs?: number;
}

export interface HeldLock {
  /** Releases the lock if it is still this holder's; says whether it was. */
  release(): Promise<boolean>;
}

/** Takes the lock if it is free: the held lock, or undefined when another holds it. */
export async function tryLock(
  state: SharedState,
  key: string,
  ttlMs: number,
): Promise<HeldLock | undefined> {
  const token = randomBytes(16).toString('base64url');
  if (!(await state.add(key, token, ttlMs))) return undefined;
  return { release: () => state.compareAndSet(key, token, undefined) };
}

/** Runs `work` holding the lock at `key`, waiting for it while another holds it. */
export async function withLock<T>(
  state: SharedState,
  key: string,
  options: LockOptions,
  work: () => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + (options.waitMs ?? options.ttlMs);
  let pause = 10;
  for (;;) {
    const held = await tryLock(state, key, options.ttlMs);
    if (held) {
      try {
        return await work();
      } finally {
        await held.release().catch(() => false);
      }
    }
    if (Date.now() >= deadline)
      throw new GatewayError('state_unavailable', 'a lock in the shared state stayed held');
    await sleep(pause);
    pause = Math.min(pause * 2, 200);
  }
}
