/**
 * The held exchanges of one process tell when each is held no more (taken,
 * run out of time, or cancelled at close), so its record in the shared state
 * goes with it and no other replica sends an answer for it here.
 */
import { expect, it, vi } from 'vitest';
import { Cancellation } from '../../../../../runtime/core/base/cancellation.ts';
import {
  HeldExchange,
  HeldExchanges,
} from '../../../../../runtime/core/sources/remote-mcp/held-exchanges.ts';

/** Held exchanges, and the ids they tell of as released, in order. */
function watched(options?: { holdMs: number }): { held: HeldExchanges; released: string[] } {
  const released: string[] = [];
  const held = new HeldExchanges({ ...options, released: (id) => released.push(id) });
  return { held, released };
}

function exchange(): HeldExchange<unknown> {
  return new HeldExchange(() => new Promise(() => {}), {});
}

it('tells of an exchange taken, and of one taken twice only once', () => {
  const { held, released } = watched();
  const one = exchange();
  held.hold(one);
  expect(held.take(one.id)).toBe(one);
  expect(held.take(one.id)).toBeUndefined();
  expect(released).toEqual([one.id]);
});

it('tells of an exchange whose hold ran out, and cancels it', () => {
  vi.useFakeTimers();
  try {
    const { held, released } = watched({ holdMs: 1_000 });
    const one = exchange();
    held.hold(one);
    vi.advanceTimersByTime(999);
    expect(released).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(released).toEqual([one.id]);
    expect(one.cancel.cancelled).toBe(true);
    expect(held.take(one.id)).toBeUndefined();
  } finally {
    vi.useRealTimers();
  }
});

it('tells of every exchange cancelled at close', () => {
  const { held, released } = watched();
  const [one, two] = [exchange(), exchange()];
  held.hold(one);
  held.hold(two);
  held.cancelAll();
  expect(released.sort()).toEqual([one.id, two.id].sort());
});

it('leaves an exchange held, its time running, when the answer naming it is not its own', () => {
  vi.useFakeTimers();
  try {
    const { held, released } = watched({ holdMs: 1_000 });
    const one = exchange();
    held.hold(one);
    expect(held.take(one.id, () => false)).toBeUndefined();
    expect(held.has(one.id)).toBe(true);
    expect(released).toEqual([]);
    // Its own answer still finds it; unanswered, its hold still runs out and cancels it.
    expect(held.take(one.id, () => true)).toBe(one);
    const two = exchange();
    held.hold(two);
    held.take(two.id, () => false);
    vi.advanceTimersByTime(1_000);
    expect(two.cancel.cancelled).toBe(true);
    expect(released).toEqual([one.id, two.id]);
  } finally {
    vi.useRealTimers();
  }
});

it('answers the question out when the exchange is cancelled, so its reader does not wait for good', async () => {
  const answers: unknown[] = [];
  let finished = false;
  const asking = new HeldExchange(
    async (onRequest) => {
      answers.push(await onRequest({ id: 1, method: 'roots/list', params: {} }));
      finished = true;
      return 'read to the end';
    },
    { roots: {} },
  );
  const step = await asking.next(new Cancellation());
  expect(step.kind).toBe('asks');
  asking.cancel.cancel();
  await vi.waitFor(() => expect(finished).toBe(true));
  expect(answers).toEqual([{ error: { code: -32800, message: 'the call was cancelled' } }]);
});
