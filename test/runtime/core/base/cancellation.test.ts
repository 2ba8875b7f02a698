import { describe, expect, it } from 'vitest';
import { Cancellation } from '../../../../runtime/core/base/cancellation.ts';

describe('cancellation', () => {
  it('tells each listener once, and only those still listening', () => {
    const call = new Cancellation();
    const heard: string[] = [];
    call.onCancel(() => heard.push('kept'));
    const undo = call.onCancel(() => heard.push('taken back'));
    undo();
    call.cancel();
    call.cancel();
    expect(call.cancelled).toBe(true);
    expect(heard).toEqual(['kept']);
  });

  it('tells a listener at once when the call is already cancelled', () => {
    const call = new Cancellation();
    call.cancel();
    let heard = false;
    call.onCancel(() => {
      heard = true;
    });
    expect(heard).toBe(true);
  });
});
