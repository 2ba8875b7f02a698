/**
 * TTLs: a key past its TTL is gone for every call at once; touch sets a new
 * one; increment counts in a fixed window. Each test lets time pass with
 * `elapse` (a clock moved by hand, or a real wait) and checks only what is
 * there afterwards, never how long anything took.
 */
import { describe, expect, it } from 'vitest';
import type { SharedStateSubject } from '../shared-state-contract.ts';
import { LONG_TTL, outcomeOf, PAST_SHORT_TTL, SHORT_TTL } from '../state-fixtures.ts';

export function describeExpiryContract(subject: SharedStateSubject): void {
  describe('a TTL', () => {
    it('ends the key it was set with, and no other', async () => {
      const { state } = subject;
      await state.set('brief', 'value', SHORT_TTL);
      await state.set('lasting', 'value', LONG_TTL);
      await state.set('forever', 'value');
      await subject.elapse(PAST_SHORT_TTL);
      expect(await state.get('brief')).toBeUndefined();
      expect(await state.get('lasting')).toBe('value');
      expect(await state.get('forever')).toBe('value');
    });

    it('is gone for take, delete and touch too', async () => {
      const { state } = subject;
      await state.set('taken', 'value', SHORT_TTL);
      await state.set('deleted', 'value', SHORT_TTL);
      await state.set('touched', 'value', SHORT_TTL);
      await subject.elapse(PAST_SHORT_TTL);
      expect(await state.take('taken')).toBeUndefined();
      expect(await state.delete('deleted')).toBe(false);
      expect(await state.touch('touched', LONG_TTL)).toBe(false);
      expect(await state.get('touched')).toBeUndefined();
    });

    it('is replaced by the next write: set without one keeps the key for good', async () => {
      const { state } = subject;
      await state.set('session', 'first', SHORT_TTL);
      await state.set('session', 'second');
      await state.set('other', 'first', LONG_TTL);
      await state.set('other', 'second', SHORT_TTL);
      await subject.elapse(PAST_SHORT_TTL);
      expect(await state.get('session')).toBe('second');
      expect(await state.get('other')).toBeUndefined();
    });

    it('leaves the key free for add once it has passed', async () => {
      const { state } = subject;
      expect(await state.add('lock', 'first holder', SHORT_TTL)).toBe(true);
      expect(await state.add('lock', 'second holder', SHORT_TTL)).toBe(false);
      await subject.elapse(PAST_SHORT_TTL);
      expect(await state.add('lock', 'second holder', LONG_TTL)).toBe(true);
      expect(await state.get('lock')).toBe('second holder');
    });

    it('makes compareAndSet find the key absent, and compareAndSet sets one of its own', async () => {
      const { state } = subject;
      await state.set('pending', 'round 1', SHORT_TTL);
      await subject.elapse(PAST_SHORT_TTL);
      expect(await state.compareAndSet('pending', 'round 1', 'round 2')).toBe(false);
      expect(await state.compareAndSet('pending', undefined, 'round 2', SHORT_TTL)).toBe(true);
      expect(await state.compareAndSet('pending', 'round 2', 'round 3', LONG_TTL)).toBe(true);
      expect(await state.compareAndSet('brief', undefined, 'value', SHORT_TTL)).toBe(true);
      expect(await state.compareAndSet('kept', undefined, 'value')).toBe(true);
      await subject.elapse(PAST_SHORT_TTL);
      expect(await state.get('pending')).toBe('round 3');
      expect(await state.get('brief')).toBeUndefined();
      expect(await state.get('kept')).toBe('value');
    });
  });

  describe('touch', () => {
    it('sets a new TTL from now, longer or shorter, and says whether the key is there', async () => {
      const { state } = subject;
      await state.set('kept alive', 'session', SHORT_TTL);
      await state.set('cut short', 'session');
      expect(await state.touch('kept alive', LONG_TTL)).toBe(true);
      expect(await state.touch('cut short', SHORT_TTL)).toBe(true);
      expect(await state.touch('never set', LONG_TTL)).toBe(false);
      await subject.elapse(PAST_SHORT_TTL);
      expect(await state.get('kept alive')).toBe('session');
      expect(await state.get('cut short')).toBeUndefined();
      expect(await state.get('never set')).toBeUndefined();
    });
  });

  describe('increment', () => {
    it('counts from 1, each key apart', async () => {
      const { state } = subject;
      const counts: number[] = [];
      for (let call = 0; call < 3; call++) counts.push(await state.increment('agent a', LONG_TTL));
      counts.push(await state.increment('agent b', LONG_TTL));
      expect(counts).toEqual([1, 2, 3, 1]);
      expect(await state.get('agent a')).toBe('3');
    });

    it('counts one fixed window: a later TTL does not extend it, and the count starts over', async () => {
      const { state } = subject;
      expect(await state.increment('window', SHORT_TTL)).toBe(1);
      expect(await state.increment('window', LONG_TTL)).toBe(2);
      await subject.elapse(PAST_SHORT_TTL);
      expect(await state.get('window')).toBeUndefined();
      expect(await state.increment('window', LONG_TTL)).toBe(1);
    });

    it('counts on from a count that was set, giving it the TTL it lacked', async () => {
      const { state } = subject;
      await state.set('written', '41');
      await state.set('negative', '-2', LONG_TTL);
      expect(await state.increment('written', SHORT_TTL)).toBe(42);
      expect(await state.increment('negative', SHORT_TTL)).toBe(-1);
      await subject.elapse(PAST_SHORT_TTL);
      expect(await state.get('written')).toBeUndefined();
      expect(await state.get('negative')).toBe('-1');
    });

    it.each([['not a number'], ['1.5'], [''], ['12abc']])(
      'refuses a value %j that is not a count with a TypeError, leaving it',
      async (value) => {
        const { state } = subject;
        await state.set('not a counter', value);
        expect(await outcomeOf(state.increment('not a counter', LONG_TTL))).toBe('TypeError');
        expect(await state.get('not a counter')).toBe(value);
      },
    );
  });
}
