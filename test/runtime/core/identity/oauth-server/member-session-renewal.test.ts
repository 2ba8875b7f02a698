/**
 * A member session renewed on activity (the console's): each renewal gives
 * it the idle time again, never past the cap counted from when it opened; a
 * session left idle ends, one at its cap ends however busy, and one signed
 * out is not brought back by a renewal. The shared state's clock and the
 * session's are one clock, moved by hand.
 */
import { describe, expect, it } from 'vitest';
import {
  endMemberSession,
  openMemberSession,
  renewMemberSession,
} from '../../../../../runtime/core/identity/oauth-server/member-sessions.ts';
import type { Member } from '../../../../../runtime/core/model/oauth.ts';
import { MemorySharedState } from '../../../../../runtime/core/ports/shared-state/memory-shared-state.ts';

const MINUTE = 60_000;
const IDLE = 30 * MINUTE;
const MAX = 8 * 60 * MINUTE;
const MEMBER: Member = {
  id: 'm1',
  workspaceId: 'w1',
  name: 'lin',
  role: 'owner',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

const STAMP = 'stamp-of-the-password';

function clocked() {
  let now = Date.UTC(2026, 0, 1, 9);
  const state = new MemorySharedState({ now: () => now });
  const ctx = { state, now: () => new Date(now) };
  return {
    ctx,
    state,
    pass: (ms: number) => {
      now += ms;
    },
  };
}

describe('renewMemberSession', () => {
  it('slides the idle time forward on each use, and ends a session left idle', async () => {
    const { ctx, pass } = clocked();
    const { id, session } = await openMemberSession(
      ctx,
      { member: MEMBER, passwordStamp: STAMP },
      IDLE,
    );
    pass(25 * MINUTE);
    expect(await renewMemberSession(ctx, id, session, IDLE, MAX)).toBe(IDLE);
    // 50 minutes after the sign-in, 25 after the renewal: alive only because it was renewed.
    pass(25 * MINUTE);
    expect(await renewMemberSession(ctx, id, session, IDLE, MAX)).toBe(IDLE);
    pass(IDLE + 1);
    expect(await renewMemberSession(ctx, id, session, IDLE, MAX)).toBeUndefined();
  });

  it('never renews past the cap from the sign-in, however busy', async () => {
    const { ctx, pass } = clocked();
    const { id, session } = await openMemberSession(
      ctx,
      { member: MEMBER, passwordStamp: STAMP },
      IDLE,
    );
    // Renewed every 20 minutes up to 7 h 20 min in: 30 minutes each time.
    for (let renewal = 1; renewal <= 22; renewal++) {
      pass(20 * MINUTE);
      expect(await renewMemberSession(ctx, id, session, IDLE, MAX)).toBe(IDLE);
    }
    // 7 h 40 min in: 20 minutes left, not 30.
    pass(20 * MINUTE);
    expect(await renewMemberSession(ctx, id, session, IDLE, MAX)).toBe(20 * MINUTE);
    pass(10 * MINUTE);
    expect(await renewMemberSession(ctx, id, session, IDLE, MAX)).toBe(10 * MINUTE);
    pass(10 * MINUTE);
    expect(await renewMemberSession(ctx, id, session, IDLE, MAX)).toBeUndefined();
  });

  it('does not bring back a session signed out meanwhile', async () => {
    const { ctx } = clocked();
    const { id, session } = await openMemberSession(
      ctx,
      { member: MEMBER, passwordStamp: STAMP },
      IDLE,
    );
    await endMemberSession(ctx, id);
    expect(await renewMemberSession(ctx, id, session, IDLE, MAX)).toBeUndefined();
  });
});
