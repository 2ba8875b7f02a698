/**
 * Concurrent calls on one key: each call is atomic, so a race has exactly the
 * winners it would have if the calls ran one after another.
 */
import { describe, expect, it } from 'vitest';
import type { SharedStateSubject } from '../shared-state-contract.ts';
import { LONG_TTL, together } from '../state-fixtures.ts';

const RACERS = 20;

export function describeConcurrencyContract(subject: SharedStateSubject): void {
  describe('concurrent calls on one key', () => {
    it('let exactly one add win, and keep its value', async () => {
      const { state } = subject;
      const won = await together(RACERS, (n) => state.add('lock', `holder ${n}`, LONG_TTL));
      const winners = won.flatMap((added, n) => (added ? [n] : []));
      expect(winners).toHaveLength(1);
      expect(await state.get('lock')).toBe(`holder ${winners[0]}`);
    });

    it('let exactly one compareAndSet from one value win', async () => {
      const { state } = subject;
      await state.set('refresh', 'token v1');
      const won = await together(RACERS, (n) =>
        state.compareAndSet('refresh', 'token v1', `token v2 by ${n}`, LONG_TTL),
      );
      const winners = won.flatMap((changed, n) => (changed ? [n] : []));
      expect(winners).toHaveLength(1);
      expect(await state.get('refresh')).toBe(`token v2 by ${winners[0]}`);
    });

    it('let exactly one compareAndSet from absent win', async () => {
      const { state } = subject;
      const won = await together(RACERS, (n) =>
        state.compareAndSet('claim', undefined, `claimed by ${n}`),
      );
      const winners = won.flatMap((changed, n) => (changed ? [n] : []));
      expect(winners).toHaveLength(1);
      expect(await state.get('claim')).toBe(`claimed by ${winners[0]}`);
    });

    it('lose no update when each retries its compareAndSet until it wins', async () => {
      const { state } = subject;
      await together(RACERS, async () => {
        for (;;) {
          const seen = await state.get('tally');
          const next = String(Number(seen ?? '0') + 1);
          if (await state.compareAndSet('tally', seen, next)) return;
        }
      });
      expect(await state.get('tally')).toBe(String(RACERS));
    });

    it('give a single-use value to exactly one take', async () => {
      const { state } = subject;
      await state.set('authorization code', 'grant');
      const taken = await together(RACERS, () => state.take('authorization code'));
      expect(taken.filter((value) => value !== undefined)).toEqual(['grant']);
      expect(await state.get('authorization code')).toBeUndefined();
    });

    it('give each increment a count of its own', async () => {
      const { state } = subject;
      const counts = await together(RACERS, () => state.increment('requests', LONG_TTL));
      expect([...counts].sort((a, b) => a - b)).toEqual(
        Array.from({ length: RACERS }, (_, n) => n + 1),
      );
    });
  });
}
