/** Reading and writing values: get, set, add, compareAndSet, take, delete; what a caller may pass; close. */
import { describe, expect, it } from 'vitest';
import type { SharedState } from '../../../../../../runtime/core/ports/shared-state/shared-state.ts';
import type { SharedStateSubject } from '../shared-state-contract.ts';
import { anInbox, eventually, LONG_TTL, outcomeOf } from '../state-fixtures.ts';

/** The value each key holds (`undefined`: none), read one by one. */
async function valuesOf(state: SharedState, keys: string[]): Promise<(string | undefined)[]> {
  const values: (string | undefined)[] = [];
  for (const key of keys) values.push(await state.get(key));
  return values;
}

export function describeValuesContract(subject: SharedStateSubject): void {
  describe('values', () => {
    it('are read back as set, and a set replaces the value before it', async () => {
      const { state } = subject;
      expect(await state.get('session:1')).toBeUndefined();
      await state.set('session:1', 'first');
      await state.set('session:2', 'other', LONG_TTL);
      expect(await state.get('session:1')).toBe('first');
      await state.set('session:1', 'second');
      expect(await valuesOf(state, ['session:1', 'session:2'])).toEqual(['second', 'other']);
    });

    it('belong to their exact key', async () => {
      const { state } = subject;
      await state.set('code:1', 'one');
      expect(await valuesOf(state, ['code:10', 'code:', 'Code:1', 'code:1 ', ''])).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
      await state.set('', 'the empty key');
      expect(await valuesOf(state, ['', 'code:1'])).toEqual(['the empty key', 'one']);
    });

    it('keep unicode, control characters and large texts exactly, in keys and values', async () => {
      const { state } = subject;
      const texts = [
        'ação 🙂 日本語 e\u0301 \u{1F468}\u200D\u{1F469}\u200D\u{1F467}',
        'nul \u0000 newline \n tab \t del \u007f',
        ' leading and trailing spaces ',
        '',
      ];
      for (const [n, text] of texts.entries()) await state.set(`${text}#${n}`, text);
      expect(
        await valuesOf(
          state,
          texts.map((text, n) => `${text}#${n}`),
        ),
      ).toEqual(texts);

      const large = `${'🙂ação'.repeat(150_000)}end`; // about 1.5 MB of UTF-8
      await state.set('large', large);
      expect(await state.get('large')).toBe(large);
    });

    it('are added only where there is none', async () => {
      const { state } = subject;
      expect(await state.add('lock', 'first')).toBe(true);
      expect(await state.add('lock', 'second')).toBe(false);
      expect(await state.get('lock')).toBe('first');
      await state.set('empty', '');
      expect(await state.add('empty', 'over the empty string')).toBe(false);
      expect(await state.get('empty')).toBe('');
    });

    describe('compareAndSet', () => {
      type Case = {
        given: string | undefined;
        expected: string | undefined;
        next: string | undefined;
        want: { changed: boolean; value: string | undefined };
      };
      it.each<[string, Case]>([
        [
          'creates an absent key',
          { given: undefined, expected: undefined, next: 'a', want: { changed: true, value: 'a' } },
        ],
        [
          'replaces the expected value',
          { given: 'x', expected: 'x', next: 'y', want: { changed: true, value: 'y' } },
        ],
        [
          'deletes the expected value',
          { given: 'x', expected: 'x', next: undefined, want: { changed: true, value: undefined } },
        ],
        [
          'keeps an absent key absent',
          {
            given: undefined,
            expected: undefined,
            next: undefined,
            want: { changed: true, value: undefined },
          },
        ],
        [
          'leaves another value',
          { given: 'x', expected: 'z', next: 'y', want: { changed: false, value: 'x' } },
        ],
        [
          'leaves a value where none was expected',
          { given: 'x', expected: undefined, next: 'y', want: { changed: false, value: 'x' } },
        ],
        [
          'leaves the empty string where none was expected',
          { given: '', expected: undefined, next: 'y', want: { changed: false, value: '' } },
        ],
        [
          'creates nothing where a value was expected',
          {
            given: undefined,
            expected: 'x',
            next: 'y',
            want: { changed: false, value: undefined },
          },
        ],
        [
          'does not delete another value',
          { given: 'x', expected: 'z', next: undefined, want: { changed: false, value: 'x' } },
        ],
      ])('%s', async (_, { given, expected, next, want }) => {
        const { state } = subject;
        if (given !== undefined) await state.set('key', given);
        const changed = await state.compareAndSet('key', expected, next);
        expect({ changed, value: await state.get('key') }).toEqual(want);
      });
    });

    it('are taken once: take answers the value and leaves none', async () => {
      const { state } = subject;
      await state.set('code', 'single use');
      expect(await state.take('code')).toBe('single use');
      expect(await state.take('code')).toBeUndefined();
      expect(await state.get('code')).toBeUndefined();
      expect(await state.take('never set')).toBeUndefined();
    });

    it('are deleted, and delete says whether there was one', async () => {
      const { state } = subject;
      await state.set('consent', 'pending');
      await state.set('kept', 'yes');
      expect(await state.delete('consent')).toBe(true);
      expect(await state.delete('consent')).toBe(false);
      expect(await valuesOf(state, ['consent', 'kept'])).toEqual([undefined, 'yes']);
    });

    it('are not seen by another state, nor its messages', async () => {
      const { state } = subject;
      const other = await subject.open();
      await state.set('shared name', 'mine');
      expect(await other.get('shared name')).toBeUndefined();
      expect(await other.add('shared name', 'theirs')).toBe(true);
      expect(await state.get('shared name')).toBe('mine');
      expect(await other.take('shared name')).toBe('theirs');
      expect(await state.increment('counter', LONG_TTL)).toBe(1);
      expect(await other.increment('counter', LONG_TTL)).toBe(1);

      const mine = anInbox();
      const theirs = anInbox();
      await state.subscribe('news', mine.listener);
      await other.subscribe('news', theirs.listener);
      await state.publish('news', 'for me');
      await other.publish('news', 'for them');
      // Each state's last message comes after anything the other sent: once it is in, so is that.
      await state.publish('news', 'mine, last');
      await other.publish('news', 'theirs, last');
      await eventually(
        () => mine.messages.includes('mine, last') && theirs.messages.includes('theirs, last'),
      );
      expect([mine.messages, theirs.messages]).toEqual([
        ['for me', 'mine, last'],
        ['for them', 'theirs, last'],
      ]);
    });
  });

  describe('what a caller passes', () => {
    const loneSurrogate = 'half a pair \uD83D';
    const noop = () => {};
    it.each<[string, (state: SharedState) => Promise<unknown>]>([
      ['a key with a lone surrogate', (state) => state.get(loneSurrogate)],
      ['a value with a lone surrogate', (state) => state.set('key', loneSurrogate)],
      ['a key that is not a string', (state) => state.get(7 as unknown as string)],
      ['a TTL of 0', (state) => state.set('key', 'value', 0)],
      ['a negative TTL', (state) => state.add('key', 'value', -5)],
      ['a TTL in part milliseconds', (state) => state.set('key', 'value', 1.5)],
      ['an endless TTL', (state) => state.set('key', 'value', Number.POSITIVE_INFINITY)],
      ['a TTL that is not a number', (state) => state.touch('key', Number.NaN)],
      ['a counter without a TTL', (state) => state.increment('key', undefined as never)],
      ['a touch without a TTL', (state) => state.touch('key', undefined as never)],
      [
        'an expected value with a lone surrogate',
        (state) => state.compareAndSet('key', '\uDC00', 'x'),
      ],
      ['a TTL for a delete', (state) => state.compareAndSet('key', 'x', undefined, LONG_TTL)],
      ['a channel with a lone surrogate', (state) => state.publish(loneSurrogate, 'message')],
      ['a message with a lone surrogate', (state) => state.publish('channel', loneSurrogate)],
      ['a listener that is not a function', (state) => state.subscribe('channel', 'no' as never)],
      [
        'a subscribe to a channel with a lone surrogate',
        (state) => state.subscribe('\uD800', noop),
      ],
    ])('refuses %s with a TypeError, changing nothing', async (_, call) => {
      const { state } = subject;
      expect(await outcomeOf(call(state))).toBe('TypeError');
      expect(await state.get('key')).toBeUndefined();
    });
  });

  describe('a closed state', () => {
    it('refuses every call with state_unavailable, and closes again harmlessly', async () => {
      const state = await subject.open();
      await state.set('key', 'value');
      await state.close();
      const calls: Promise<unknown>[] = [
        state.get('key'),
        state.set('key', 'value'),
        state.add('key', 'value'),
        state.compareAndSet('key', undefined, 'value'),
        state.take('key'),
        state.delete('key'),
        state.touch('key', LONG_TTL),
        state.increment('key', LONG_TTL),
        state.publish('channel', 'message'),
        state.subscribe('channel', () => {}),
      ];
      const outcomes = await Promise.all(calls.map(outcomeOf));
      expect(new Set(outcomes)).toEqual(new Set(['state_unavailable']));
      await state.close();
    });
  });
}
