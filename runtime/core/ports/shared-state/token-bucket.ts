/**
 * The token bucket both `SharedState` implementations keep (the in-process
 * one runs `takeFromBucket` below; the Redis one runs the same arithmetic in
 * a Lua script, `runtime/adapters/redis/token-bucket-script.ts`).
 *
 * A bucket holds up to `burst` tokens and gains `perMinute` tokens a minute,
 * continuously; a call takes one token, or is refused when there is less than
 * one, told how long until there is. A bucket nobody has touched is full, so
 * a bucket is kept only until it would be full again: then it is forgotten,
 * which is the same as keeping it.
 *
 * A call may take from several buckets at once (an agent's and a
 * connection's): it takes one token from each or, when any has less than
 * one, from none, told how long until all of them do.
 */

export interface BucketRule {
  /** Tokens gained per minute: a whole number above 0. */
  perMinute: number;
  /** Most tokens held (the calls that may come at once): a whole number above 0. */
  burst: number;
}

export type BucketTake =
  | { granted: true /** Whole tokens left after this one. */; remaining: number }
  | {
      granted: false /** How long until a token is there, in ms (at least 1). */;
      retryAfterMs: number;
    };

/** What a bucket holds between takes. */
export interface BucketLevel {
  tokens: number;
  /** When `tokens` was counted, in ms since the epoch. */
  at: number;
}

export interface BucketStep {
  take: BucketTake;
  /** The level to keep, when the take changed it (a refusal changes nothing). */
  next: BucketLevel | undefined;
  /** How long to keep `next`: until the bucket would be full again. */
  ttlMs: number;
}

/** Refills the bucket to `now` and takes one token, if there is one. */
export function takeFromBucket(
  level: BucketLevel | undefined,
  rule: BucketRule,
  now: number,
): BucketStep {
  const perMs = rule.perMinute / 60_000;
  const tokens =
    level === undefined
      ? rule.burst
      : Math.min(rule.burst, level.tokens + Math.max(0, now - level.at) * perMs);
  if (tokens < 1) {
    return {
      take: { granted: false, retryAfterMs: Math.max(1, Math.ceil((1 - tokens) / perMs)) },
      next: undefined,
      ttlMs: 0,
    };
  }
  const left = tokens - 1;
  return {
    take: { granted: true, remaining: Math.floor(left) },
    next: { tokens: left, at: now },
    ttlMs: Math.max(1, Math.ceil((rule.burst - left) / perMs)),
  };
}

/** One bucket a take draws on: its key in the shared state and its rule. */
export interface Bucket {
  key: string;
  rule: BucketRule;
}

export type BucketsTake =
  | { granted: true /** Whole tokens left in each bucket, in order. */; remaining: number[] }
  | {
      granted: false;
      /** The first bucket (by index) that had less than a token. */
      refusedBy: number;
      /** How long until every bucket has a token, in ms (at least 1). */
      retryAfterMs: number;
    };

/** Takes a token from every bucket, or from none when any has less than one. */
export function takeFromBuckets(
  levels: ReadonlyArray<BucketLevel | undefined>,
  rules: readonly BucketRule[],
  now: number,
): { take: BucketsTake; steps: BucketStep[] } {
  const steps = rules.map((rule, i) => takeFromBucket(levels[i], rule, now));
  const refusedBy = steps.findIndex((step) => !step.take.granted);
  if (refusedBy === -1)
    return {
      take: { granted: true, remaining: steps.map((s) => (s.take.granted ? s.take.remaining : 0)) },
      steps,
    };
  const waits = steps.map((s) => (s.take.granted ? 0 : s.take.retryAfterMs));
  return { take: { granted: false, refusedBy, retryAfterMs: Math.max(...waits) }, steps };
}

/** What a take passes: at least one bucket, each rule whole numbers above 0; or a `TypeError`. */
export function checkBuckets(buckets: readonly Bucket[]): void {
  if (!Array.isArray(buckets) || buckets.length === 0)
    throw new TypeError('takeTokens takes at least one bucket');
  for (const bucket of buckets) checkBucketRule(bucket.rule);
}

/** A rule a caller passes: whole numbers above 0, or a `TypeError` (both implementations check alike). */
export function checkBucketRule(rule: BucketRule): void {
  for (const [name, value] of [
    ['perMinute', rule?.perMinute],
    ['burst', rule?.burst],
  ] as const) {
    if (!Number.isSafeInteger(value) || (value as number) <= 0)
      throw new TypeError(`${name} must be a whole number above 0`);
  }
}

/** Whole seconds to wait, as a `Retry-After` header says them (at least 1). */
export function retryAfterSeconds(retryAfterMs: number): number {
  return Math.max(1, Math.ceil(retryAfterMs / 1000));
}
