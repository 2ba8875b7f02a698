/**
 * The shared-state lock (`runtime/core/ports/shared-state/shared-lock.ts`) over each
 * implementation: one holder at a time however many take it at once, a
 * release by its holder only, and a lock whose holder died gone with its TTL.
 */
import { describe, expect, it } from 'vitest';
import {
  tryLock,
  withLock,
} from '../../../../../../runtime/core/ports/shared-state/shared-lock.ts';
import type { SharedStateSubject } from '../shared-state-contract.ts';
import { LONG_TTL, together } from '../state-fixtures.ts';

export function describeLockContract(subject: SharedStateSubject): void {
  describe('the lock', () => {
    it('runs the work of concurrent takers one at a time', async () => {
      const { state } = subject;
      let inside = 0;
      let most = 0;
      const order: number[] = [];
      await together(8, (n) =>
        withLock(state, 'refresh/conn', { ttlMs: LONG_TTL }, async () => {
          inside++;
          most = Math.max(most, inside);
          await new Promise((resolve) => setImmediate(resolve));
          order.push(n);
          inside--;
        }),
      );
      expect(most).toBe(1);
      expect(order.sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(await state.get('refresh/conn')).toBeUndefined();
    });

    it('is released by its holder only', async () => {
      const { state } = subject;
      const first = await tryLock(state, 'l', LONG_TTL);
      expect(first).toBeDefined();
      expect(await tryLock(state, 'l', LONG_TTL)).toBeUndefined();
      await state.set('l', 'another holder', LONG_TTL);
      expect(await first!.release()).toBe(false);
      expect(await state.get('l')).toBe('another holder');
    });

    it('is gone after its TTL when its holder never releases it', async () => {
      const { state } = subject;
      expect(await tryLock(state, 'l', 1_000)).toBeDefined();
      await subject.elapse(1_001);
      expect(await tryLock(state, 'l', 1_000)).toBeDefined();
    });
  });
}
