/** What the shared-state tests share: TTLs, a listener that keeps what it hears, a bounded wait. */
import { GatewayError } from '../../../../../runtime/core/base/errors.ts';
import type { MessageListener } from '../../../../../runtime/core/ports/shared-state/shared-state.ts';

/** Short enough to wait out in a test; `elapse(PAST_SHORT_TTL)` is well past it. */
export const SHORT_TTL = 100;
export const PAST_SHORT_TTL = 250;
/** Never reached in a test. */
export const LONG_TTL = 600_000;

export interface Inbox {
  readonly listener: MessageListener;
  readonly messages: string[];
}

export function anInbox(): Inbox {
  const messages: string[] = [];
  return { messages, listener: (message) => messages.push(message) };
}

/** Waits until `check` holds, polling; fails after `limitMs` (a bound for a stuck test, not a timing). */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  limitMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still not so after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** How a call ended: `resolved`, the `GatewayError` code it rejected with, or `TypeError` (misuse). */
export async function outcomeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    if (error instanceof GatewayError) return error.code;
    if (error instanceof TypeError) return 'TypeError';
    throw error;
  }
}

/** `count` copies of `work(index)` started together. */
export function together<T>(count: number, work: (index: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_, index) => work(index)));
}
