/**
 * Publish/subscribe: fire-and-forget, to the subscriptions active when the
 * message goes out, asynchronously. Absence is checked without waiting for
 * time to pass: a message a subscription must not get is followed by one on
 * the same path that another subscription must get, and once that one is in,
 * the first would have been too.
 */
import { describe, expect, it } from 'vitest';
import type { SharedStateSubject } from '../shared-state-contract.ts';
import { anInbox, eventually } from '../state-fixtures.ts';

export function describeChannelsContract(subject: SharedStateSubject): void {
  describe('a published message', () => {
    it('reaches every subscription of its channel once, and no other channel', async () => {
      const { state } = subject;
      const [first, second, elsewhere] = [anInbox(), anInbox(), anInbox()];
      await state.subscribe('tools changed', first.listener);
      await state.subscribe('tools changed', second.listener);
      await state.subscribe('tools changed too', elsewhere.listener);
      await state.publish('tools changed', 'agent 1');
      await state.publish('tools changed too', 'last');
      await eventually(
        () =>
          first.messages.length > 0 && second.messages.length > 0 && elsewhere.messages.length > 0,
      );
      expect([first.messages, second.messages, elsewhere.messages]).toEqual([
        ['agent 1'],
        ['agent 1'],
        ['last'],
      ]);
    });

    it('arrives in the order it was published', async () => {
      const { state } = subject;
      const inbox = anInbox();
      await state.subscribe('ordered', inbox.listener);
      const sent = Array.from({ length: 25 }, (_, n) => `message ${n}`);
      for (const message of sent) await state.publish('ordered', message);
      await eventually(() => inbox.messages.length === sent.length);
      expect(inbox.messages).toEqual(sent);
    });

    it('keeps unicode and large messages exactly, on a unicode channel', async () => {
      const { state } = subject;
      const inbox = anInbox();
      const messages = ['ação 🙂 日本語\u0000\n', '', `${'{"k":"🙂"}'.repeat(100_000)}`];
      await state.subscribe('canal ção 🙂', inbox.listener);
      for (const message of messages) await state.publish('canal ção 🙂', message);
      await eventually(() => inbox.messages.length === messages.length);
      expect(inbox.messages).toEqual(messages);
    });

    it('is never delivered inside publish', async () => {
      const { state } = subject;
      let publishing = false;
      const heardWhilePublishing: boolean[] = [];
      await state.subscribe('asynchronous', () => heardWhilePublishing.push(publishing));
      publishing = true;
      const published = state.publish('asynchronous', 'message');
      publishing = false;
      await published;
      await eventually(() => heardWhilePublishing.length === 1);
      expect(heardWhilePublishing).toEqual([false]);
    });

    it('does not reach a subscription made after it was published', async () => {
      const { state } = subject;
      await state.publish('late', 'before anyone listened');
      const inbox = anInbox();
      await state.subscribe('late', inbox.listener);
      await state.publish('late', 'after');
      await eventually(() => inbox.messages.includes('after'));
      expect(inbox.messages).toEqual(['after']);
    });

    it('reaches the others when one listener throws, and hands its error over', async () => {
      const errors: unknown[] = [];
      const state = await subject.open({ onListenerError: (error) => errors.push(error) });
      const [before, after] = [anInbox(), anInbox()];
      await state.subscribe('fragile', before.listener);
      await state.subscribe('fragile', () => {
        throw new Error('listener broke');
      });
      await state.subscribe('fragile', after.listener);
      await state.publish('fragile', 'one');
      await state.publish('fragile', 'two');
      await eventually(() => after.messages.length === 2);
      expect([before.messages, after.messages]).toEqual([
        ['one', 'two'],
        ['one', 'two'],
      ]);
      expect(errors.map((error) => (error as Error).message)).toEqual([
        'listener broke',
        'listener broke',
      ]);
    });
  });

  describe('a subscription', () => {
    it('gets nothing once unsubscribed, while the others of its channel go on', async () => {
      const { state } = subject;
      const [staying, leaving] = [anInbox(), anInbox()];
      await state.subscribe('news', staying.listener);
      const subscription = await state.subscribe('news', leaving.listener);
      await state.publish('news', 'before');
      await eventually(() => leaving.messages.length === 1);
      await subscription.unsubscribe();
      await subscription.unsubscribe();
      await state.publish('news', 'after');
      await eventually(() => staying.messages.includes('after'));
      expect([staying.messages, leaving.messages]).toEqual([['before', 'after'], ['before']]);
    });

    it('can be made again on a channel just left, even without waiting for the leaving', async () => {
      const { state } = subject;
      const [first, second, third] = [anInbox(), anInbox(), anInbox()];
      const left = await state.subscribe('again', first.listener);
      const leaving = left.unsubscribe();
      const rejoined = state.subscribe('again', second.listener);
      await leaving;
      const subscription = await rejoined;
      const other = await state.subscribe('again', third.listener);
      await other.unsubscribe();
      await state.publish('again', 'still here?');
      await eventually(() => second.messages.length === 1);
      expect([first.messages, second.messages, third.messages]).toEqual([[], ['still here?'], []]);
      await subscription.unsubscribe();
    });
  });
}
