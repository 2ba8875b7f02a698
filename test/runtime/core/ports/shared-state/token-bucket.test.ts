import { describe, expect, it } from 'vitest';
import {
  type BucketLevel,
  type BucketRule,
  type BucketStep,
  retryAfterSeconds,
  takeFromBucket,
  takeFromBuckets,
} from '../../../../../runtime/core/ports/shared-state/token-bucket.ts';

const T = 1_000_000;
/** 60 a minute: a token a second. */
const SECOND: BucketRule = { perMinute: 60, burst: 5 };

describe('takeFromBucket', () => {
  it.each<
    [string, { level: BucketLevel | undefined; rule: BucketRule; now: number; want: BucketStep }]
  >([
    [
      'a bucket never taken from is full',
      {
        level: undefined,
        rule: SECOND,
        now: T,
        want: { take: { granted: true, remaining: 4 }, next: { tokens: 4, at: T }, ttlMs: 1000 },
      },
    ],
    [
      'refills continuously, by the share of a minute that passed',
      {
        level: { tokens: 0, at: T },
        rule: SECOND,
        now: T + 2500,
        want: {
          take: { granted: true, remaining: 1 },
          next: { tokens: 1.5, at: T + 2500 },
          ttlMs: 3500,
        },
      },
    ],
    [
      'never holds more than the burst',
      {
        level: { tokens: 2, at: T },
        rule: SECOND,
        now: T + 3_600_000,
        want: {
          take: { granted: true, remaining: 4 },
          next: { tokens: 4, at: T + 3_600_000 },
          ttlMs: 1000,
        },
      },
    ],
    [
      'refuses under one token, with the time until one, and changes nothing',
      {
        level: { tokens: 0.25, at: T },
        rule: SECOND,
        now: T,
        want: { take: { granted: false, retryAfterMs: 750 }, next: undefined, ttlMs: 0 },
      },
    ],
    [
      'a clock that went back refills nothing',
      {
        level: { tokens: 0, at: T },
        rule: SECOND,
        now: T - 10_000,
        want: { take: { granted: false, retryAfterMs: 1000 }, next: undefined, ttlMs: 0 },
      },
    ],
    [
      'a slow rule: a token a minute',
      {
        level: { tokens: 0, at: T },
        rule: { perMinute: 1, burst: 1 },
        now: T + 15_000,
        want: { take: { granted: false, retryAfterMs: 45_000 }, next: undefined, ttlMs: 0 },
      },
    ],
  ])('%s', (_, { level, rule, now, want }) => {
    expect(takeFromBucket(level, rule, now)).toEqual(want);
  });

  it('grants exactly the burst, then a token per 60/perMinute seconds', () => {
    const rule = { perMinute: 120, burst: 3 };
    let level: BucketLevel | undefined;
    const granted: number[] = [];
    // One try every 100 ms for 10 s: 3 at once, then one each 500 ms (what the
    // first three left over, 0.6 of a token by the third, fills by the fifth try).
    for (let tick = 0; tick <= 100; tick++) {
      const step = takeFromBucket(level, rule, T + tick * 100);
      if (step.take.granted) {
        granted.push(tick);
        level = step.next;
      }
    }
    expect(granted).toEqual([0, 1, 2, ...Array.from({ length: 20 }, (_, n) => 5 * (n + 1))]);
  });
});

describe('takeFromBuckets', () => {
  it('takes from every bucket when each has a token', () => {
    const { take, steps } = takeFromBuckets([undefined, { tokens: 1, at: T }], [SECOND, SECOND], T);
    expect(take).toEqual({ granted: true, remaining: [4, 0] });
    expect(steps.map((step) => step.next?.tokens)).toEqual([4, 0]);
  });

  it('refuses naming the first empty bucket, and waits until every one has a token', () => {
    const slow = { perMinute: 1, burst: 1 };
    const { take } = takeFromBuckets(
      [{ tokens: 0.5, at: T }, undefined, { tokens: 0, at: T }],
      [SECOND, SECOND, slow],
      T,
    );
    expect(take).toEqual({ granted: false, refusedBy: 0, retryAfterMs: 60_000 });
  });
});

describe('retryAfterSeconds', () => {
  it.each([
    [1, 1],
    [999, 1],
    [1000, 1],
    [1001, 2],
    [45_000, 45],
  ])('%d ms is %d s', (ms, seconds) => {
    expect(retryAfterSeconds(ms)).toBe(seconds);
  });
});
