/**
 * Token buckets: takeToken. The rules are slow (a token a minute) wherever
 * a test counts refusals, so no test depends on how long its calls take;
 * refilling is checked only as "granted again after a wait".
 */
import { describe, expect, it } from 'vitest';
import type { SharedStateSubject } from '../shared-state-contract.ts';
import { outcomeOf, PAST_SHORT_TTL, together } from '../state-fixtures.ts';

/** A token a minute: nothing refills during a test. */
const SLOW = { perMinute: 1, burst: 3 };
/** Ten tokens a second: full again within `PAST_SHORT_TTL`. */
const FAST = { perMinute: 600, burst: 1 };

export function describeBucketContract(subject: SharedStateSubject): void {
  describe('token buckets', () => {
    it('grant a full burst, then refuse with the time until the next token', async () => {
      const { state } = subject;
      const takes = [];
      for (let call = 0; call < 4; call++) takes.push(await state.takeToken('agent:a', SLOW));
      expect(takes.slice(0, 3)).toEqual([
        { granted: true, remaining: 2 },
        { granted: true, remaining: 1 },
        { granted: true, remaining: 0 },
      ]);
      const refused = takes[3];
      expect(refused?.granted).toBe(false);
      if (refused?.granted !== false) return;
      // A token a minute, and the first was taken less than a minute ago.
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000);
    });

    it('keep one bucket per key', async () => {
      const { state } = subject;
      const rule = { perMinute: 1, burst: 1 };
      expect((await state.takeToken('connection:1', rule)).granted).toBe(true);
      expect((await state.takeToken('connection:1', rule)).granted).toBe(false);
      expect((await state.takeToken('connection:2', rule)).granted).toBe(true);
      expect((await state.takeToken('Connection:1', rule)).granted).toBe(true);
    });

    it('refill over time, and forget a bucket once it is full again', async () => {
      const { state } = subject;
      expect((await state.takeToken('refills', FAST)).granted).toBe(true);
      await subject.elapse(PAST_SHORT_TTL);
      expect(await state.get('refills')).toBeUndefined();
      expect(await state.takeToken('refills', FAST)).toEqual({ granted: true, remaining: 0 });
    });

    it('hold no more than the burst the rule now says', async () => {
      const { state } = subject;
      expect((await state.takeToken('shrunk', { perMinute: 1, burst: 10 })).granted).toBe(true);
      const smaller = { perMinute: 1, burst: 2 };
      expect(await state.takeToken('shrunk', smaller)).toEqual({ granted: true, remaining: 1 });
      expect(await state.takeToken('shrunk', smaller)).toEqual({ granted: true, remaining: 0 });
      expect((await state.takeToken('shrunk', smaller)).granted).toBe(false);
    });

    it('grant concurrent takes no more tokens than the bucket holds', async () => {
      const { state } = subject;
      const takes = await together(20, () =>
        state.takeToken('crowded', { perMinute: 1, burst: 5 }),
      );
      expect(takes.filter((take) => take.granted)).toHaveLength(5);
      expect(
        takes
          .filter((take) => take.granted)
          .map((take) => (take.granted ? take.remaining : -1))
          .sort(),
      ).toEqual([0, 1, 2, 3, 4]);
    });

    it.each([
      ['a per-minute of 0', { perMinute: 0, burst: 1 }],
      ['a fractional burst', { perMinute: 1, burst: 1.5 }],
      ['a negative burst', { perMinute: 1, burst: -1 }],
    ])('refuse %s with a TypeError', async (_, rule) => {
      expect(await outcomeOf(subject.state.takeToken('bad rule', rule))).toBe('TypeError');
    });

    it('refuse a key that holds a value of another kind with a TypeError, leaving it', async () => {
      const { state } = subject;
      await state.set('a value', 'text');
      expect(await outcomeOf(state.takeToken('a value', SLOW))).toBe('TypeError');
      expect(await state.get('a value')).toBe('text');
    });
  });
}
