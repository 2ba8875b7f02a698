/** The clock an exchange keeps for its server's time: paused time does not count toward it. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PausableTimer } from '../../../../runtime/core/outbound/pausable-timer.ts';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

function timer(ms: number): { fired: () => number; timer: PausableTimer } {
  let fired = 0;
  return { fired: () => fired, timer: new PausableTimer(ms, () => fired++) };
}

describe('a pausable timer', () => {
  it('fires once its time has run, paused time left out', () => {
    const { fired, timer: clock } = timer(1_000);
    vi.advanceTimersByTime(400);
    const resume = clock.pause();
    vi.advanceTimersByTime(5_000);
    expect(fired()).toBe(0);
    resume();
    vi.advanceTimersByTime(599);
    expect(fired()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(fired()).toBe(1);
  });

  it('goes on when the last of nested pauses ends, and a resume counts once', () => {
    const { fired, timer: clock } = timer(100);
    const first = clock.pause();
    const second = clock.pause();
    first();
    first();
    vi.advanceTimersByTime(1_000);
    expect(fired()).toBe(0);
    second();
    vi.advanceTimersByTime(100);
    expect(fired()).toBe(1);
  });

  it('starts its whole time over on restart, also from a shortened remainder', () => {
    const { fired, timer: clock } = timer(100);
    vi.advanceTimersByTime(60);
    clock.pause()();
    // Resumed with 40 left; a restart gives it the whole 100 again.
    vi.advanceTimersByTime(30);
    clock.restart();
    vi.advanceTimersByTime(99);
    expect(fired()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(fired()).toBe(1);
  });

  it('restarted while paused, runs its whole time from the resume', () => {
    const { fired, timer: clock } = timer(100);
    vi.advanceTimersByTime(90);
    const resume = clock.pause();
    clock.restart();
    resume();
    vi.advanceTimersByTime(99);
    expect(fired()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(fired()).toBe(1);
  });

  it('never fires once cleared, paused or not', () => {
    const { fired, timer: clock } = timer(100);
    const resume = clock.pause();
    clock.clear();
    resume();
    vi.advanceTimersByTime(1_000);
    expect(fired()).toBe(0);
  });
});
