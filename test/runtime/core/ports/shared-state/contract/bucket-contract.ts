/**
 * Token buckets: takeTokens, from one bucket or several at once. The rules are slow (a token a minute) wherever
 * a test counts refusals, so no test depends on how long its calls take;
 * refilling is checked only as "granted again after a wait".
 */
import { describe, expect, it } from 'vitest';
import type { SharedState } from '../../../../../../runtime/core/ports/shared-state/shared-state.ts';
import type {
  BucketRule,
  BucketsTake,
} from '../../../../../../runtime/core/ports/shared-state/token-bucket.ts';
import type { SharedStateSubject } from '../shared-state-contract.ts';
import { outcomeOf, PAST_SHORT_TTL, together } from '../state-fixtures.ts';

/** A take from one bucket, as its single answer. */
async function takeOne(state: SharedState, key: string, rule: BucketRule) {
  const take: BucketsTake = await state.takeTokens([{ key, rule }]);
  return take.granted
    ? { granted: true as const, remaining: take.remaining[0] }
    : { granted: false as const, retryAfterMs: take.retryAfterMs };
}

/** A token a minute: nothing refills during a test. */
const SLOW = { perMinute: 1, burst: 3 };
/** Ten tokens a second: full again within `PAST_SHORT_TTL`. */
const FAST = { perMinute: 600, burst: 1 };

export function describeBucketContract(subject: SharedStateSubject): void {
  describe('token buckets', () => {
    it('grant a full burst, then refuse with the time until the next token', async () => {
      const { state } = subject;
      const takes = [];
      for (let call = 0; call < 4; call++) takes.push(await takeOne(state, 'agent:a', SLOW));
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
      expect((await takeOne(state, 'connection:1', rule)).granted).toBe(true);
      expect((await takeOne(state, 'connection:1', rule)).granted).toBe(false);
      expect((await takeOne(state, 'connection:2', rule)).granted).toBe(true);
      expect((await takeOne(state, 'Connection:1', rule)).granted).toBe(true);
    });

    it('refill over time, and forget a bucket once it is full again', async () => {
      const { state } = subject;
      expect((await takeOne(state, 'refills', FAST)).granted).toBe(true);
      await subject.elapse(PAST_SHORT_TTL);
      expect(await state.get('refills')).toBeUndefined();
      expect(await takeOne(state, 'refills', FAST)).toEqual({ granted: true, remaining: 0 });
    });

    it('hold no more than the burst the rule now says', async () => {
      const { state } = subject;
      expect((await takeOne(state, 'shrunk', { perMinute: 1, burst: 10 })).granted).toBe(true);
      const smaller = { perMinute: 1, burst: 2 };
      expect(await takeOne(state, 'shrunk', smaller)).toEqual({ granted: true, remaining: 1 });
      expect(await takeOne(state, 'shrunk', smaller)).toEqual({ granted: true, remaining: 0 });
      expect((await takeOne(state, 'shrunk', smaller)).granted).toBe(false);
    });

    it('grant concurrent takes no more tokens than the bucket holds', async () => {
      const { state } = subject;
      const takes = await together(20, () => takeOne(state, 'crowded', { perMinute: 1, burst: 5 }));
      expect(takes.filter((take) => take.granted)).toHaveLength(5);
      expect(
        takes
          .filter((take) => take.granted)
          .map((take) => (take.granted ? take.remaining : -1))
          .sort(),
      ).toEqual([0, 1, 2, 3, 4]);
    });

    it('take from several buckets at once: from each, or from none while any is empty', async () => {
      const { state } = subject;
      const agent = { key: 'agent:b', rule: { perMinute: 1, burst: 3 } };
      const connection = { key: 'connection:b', rule: { perMinute: 1, burst: 1 } };
      expect(await state.takeTokens([agent, connection])).toEqual({
        granted: true,
        remaining: [2, 0],
      });
      const refused = await state.takeTokens([agent, connection]);
      expect(refused).toMatchObject({ granted: false, refusedBy: 1 });
      // The agent's bucket gave nothing for the refused call.
      expect(await takeOne(state, agent.key, agent.rule)).toEqual({ granted: true, remaining: 1 });
      expect(await state.takeTokens([connection, agent])).toMatchObject({ refusedBy: 0 });
    });

    it('refuse no bucket with a TypeError', async () => {
      expect(await outcomeOf(subject.state.takeTokens([]))).toBe('TypeError');
    });

    it.each([
      ['a per-minute of 0', { perMinute: 0, burst: 1 }],
      ['a fractional burst', { perMinute: 1, burst: 1.5 }],
      ['a negative burst', { perMinute: 1, burst: -1 }],
    ])('refuse %s with a TypeError', async (_, rule) => {
      expect(await outcomeOf(takeOne(subject.state, 'bad rule', rule))).toBe('TypeError');
    });

    it('refuse a key that holds a value of another kind with a TypeError, leaving it', async () => {
      const { state } = subject;
      await state.set('a value', 'text');
      expect(await outcomeOf(takeOne(state, 'a value', SLOW))).toBe('TypeError');
      expect(await state.get('a value')).toBe('text');
    });
  });
}
