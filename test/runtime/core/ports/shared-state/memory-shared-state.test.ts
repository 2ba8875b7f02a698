import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemorySharedState } from '../../../../../runtime/core/ports/shared-state/memory-shared-state.ts';
import { describeSharedStateContract } from './shared-state-contract.ts';
import { anInbox, eventually, LONG_TTL, outcomeOf, SHORT_TTL } from './state-fixtures.ts';

// One clock for every state the harness opens, moved by hand: no test waits.
let now = Date.UTC(2026, 6, 28);

describeSharedStateContract('in-process', {
  async open(options) {
    return new MemorySharedState({ now: () => now, ...options });
  },
  async elapse(ms) {
    now += ms;
  },
});

describe('the in-process shared state', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds an expired key only until it is read', async () => {
    let clock = 0;
    const state = new MemorySharedState({ now: () => clock });
    try {
      await state.set('brief', 'value', SHORT_TTL);
      clock = SHORT_TTL - 1;
      expect(await state.get('brief')).toBe('value');
      clock = SHORT_TTL;
      expect(state.size).toBe(1);
      expect(await state.get('brief')).toBeUndefined();
      expect(state.size).toBe(0);
    } finally {
      await state.close();
    }
  });

  it('sweeps expired keys nobody reads, on its timer, and keeps the rest', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let clock = 0;
    const state = new MemorySharedState({ now: () => clock, sweepIntervalMs: 1_000 });
    try {
      for (let n = 0; n < 1_000; n++) await state.set(`code ${n}`, 'value', SHORT_TTL);
      await state.set('session', 'value', LONG_TTL);
      await state.set('forever', 'value');
      await state.increment('window', SHORT_TTL);
      clock = SHORT_TTL;
      expect(state.size).toBe(1_003);
      vi.advanceTimersByTime(1_000);
      expect(state.size).toBe(2);
      expect(await state.get('session')).toBe('value');
      expect(await state.get('forever')).toBe('value');
    } finally {
      await state.close();
    }
  });

  it('keeps no timer alive: the sweep is unref’d and stops at close', async () => {
    const aliveBefore = process.getActiveResourcesInfo().length;
    const unfaked = new MemorySharedState();
    expect(process.getActiveResourcesInfo()).toHaveLength(aliveBefore);
    await unfaked.close();

    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const state = new MemorySharedState();
    expect(vi.getTimerCount()).toBe(1);
    await state.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('refuses a sweep interval that is not a whole number of ms above 0', () => {
    expect(() => new MemorySharedState({ sweepIntervalMs: 0 })).toThrow(TypeError);
  });

  it('drops a message queued for a subscription that ends before it is delivered', async () => {
    const state = new MemorySharedState();
    try {
      const [staying, leaving] = [anInbox(), anInbox()];
      await state.subscribe('news', staying.listener);
      const subscription = await state.subscribe('news', leaving.listener);
      const published = state.publish('news', 'queued');
      await subscription.unsubscribe();
      await published;
      await eventually(() => staying.messages.length === 1);
      expect([staying.messages, leaving.messages]).toEqual([['queued'], []]);
    } finally {
      await state.close();
    }
  });

  it('delivers nothing queued before close', async () => {
    const state = new MemorySharedState();
    const [inbox, witness] = [anInbox(), anInbox()];
    await state.subscribe('news', inbox.listener);
    const published = state.publish('news', 'queued');
    await state.close();
    await published;
    queueMicrotask(() => witness.listener('after the queued delivery'));
    await eventually(() => witness.messages.length === 1);
    expect(inbox.messages).toEqual([]);
    expect(await outcomeOf(state.publish('news', 'late'))).toBe('state_unavailable');
  });

  it('warns of a listener error when no handler is given', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const state = new MemorySharedState();
    try {
      await state.subscribe('fragile', () => {
        throw new Error('listener broke');
      });
      await state.publish('fragile', 'message');
      await eventually(() => warnings.length > 0);
      expect(warnings.map((warning) => [warning.name, warning.message])).toContainEqual([
        'SharedStateListenerError',
        'listener broke',
      ]);
    } finally {
      process.off('warning', onWarning);
      await state.close();
    }
  });
});
