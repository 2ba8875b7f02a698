/**
 * A rate limit on requests that are not governed calls (the admin API per
 * admin token, the token endpoint per OAuth client and address): one token
 * bucket in the shared state per key, so every replica counts together.
 */
import { GatewayError } from '../base/errors.ts';
import type { SharedState } from '../ports/shared-state/shared-state.ts';
import { type BucketRule, retryAfterSeconds } from '../ports/shared-state/token-bucket.ts';

/**
 * Takes a token for one request under `rule` (none: no limit): undefined when
 * it may go on, else the `rate_limited` refusal, whose detail says the wait
 * (`retryAfterSeconds`, which the HTTP surfaces send as `Retry-After`).
 */
export async function chargeRequest(
  state: SharedState,
  key: string,
  rule: BucketRule | undefined,
  what: string,
): Promise<GatewayError | undefined> {
  if (rule === undefined) return undefined;
  const take = await state.takeTokens([{ key, rule }]);
  if (take.granted) return undefined;
  const seconds = retryAfterSeconds(take.retryAfterMs);
  return new GatewayError(
    'rate_limited',
    `${what} went over ${rule.perMinute} requests a minute (${rule.burst} at once); try again in ${seconds} s`,
    { detail: { perMinute: rule.perMinute, burst: rule.burst, retryAfterSeconds: seconds } },
  );
}

/** The seconds a `rate_limited` refusal says to wait, for a `Retry-After` header; undefined for any other error. */
export function retryAfterOf(error: unknown): number | undefined {
  if (!(error instanceof GatewayError) || error.code !== 'rate_limited') return undefined;
  const seconds = error.detail?.retryAfterSeconds;
  return typeof seconds === 'number' ? seconds : undefined;
}
