/**
 * The checks every `SharedState` implementation makes on what a caller
 * passes, so both refuse the same misuse with the same `TypeError`. The
 * messages name the parameter, never its text (a key may be a secret).
 */
import { GatewayError } from '../../base/errors.ts';

/** In unicode mode a surrogate that is half of a pair is not matched: only a lone one is. */
const LONE_SURROGATE = /\p{Cs}/u;

/** A key, value, channel or message: well-formed UTF-16, so it survives UTF-8 unchanged. */
export function checkText(name: string, text: string): void {
  if (typeof text !== 'string') throw new TypeError(`${name} must be a string`);
  if (LONE_SURROGATE.test(text)) throw new TypeError(`${name} must be well-formed UTF-16`);
}

/** A TTL, when one is given: whole milliseconds above 0. */
export function checkTtl(ttlMs: number | undefined): void {
  if (ttlMs === undefined) return;
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
    throw new TypeError('ttlMs must be a whole number of milliseconds above 0');
  }
}

/** A TTL that must be given (`touch`, `increment`). */
export function checkRequiredTtl(ttlMs: number): void {
  if (ttlMs === undefined) throw new TypeError('ttlMs is required');
  checkTtl(ttlMs);
}

export function checkCompareAndSet(
  key: string,
  expected: string | undefined,
  next: string | undefined,
  ttlMs: number | undefined,
): void {
  checkText('key', key);
  if (expected !== undefined) checkText('expected', expected);
  if (next !== undefined) checkText('next', next);
  checkTtl(ttlMs);
  if (next === undefined && ttlMs !== undefined) {
    throw new TypeError('compareAndSet takes a TTL only with a next value');
  }
}

/** The count a counter's text holds, as the counters of every implementation read it. */
export function countOf(text: string): number {
  const count = /^-?(?:0|[1-9][0-9]*)$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(count))
    throw new TypeError('increment found a value that is not a count');
  return count;
}

/** What a call on a closed shared state rejects with. */
export function stateClosed(): GatewayError {
  return new GatewayError('state_unavailable', 'the shared state is closed');
}
