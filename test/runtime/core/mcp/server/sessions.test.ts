import { describe, expect, it } from 'vitest';
import { Cancellation } from '../../../../../runtime/core/base/cancellation.ts';
import { SessionTable } from '../../../../../runtime/core/mcp/server/sessions.ts';

const ALICE = { agentId: 'agt_alice', workspaceId: 'ws_1' };
const BOB = { agentId: 'agt_bob', workspaceId: 'ws_1' };
const ALICE_ELSEWHERE = { agentId: 'agt_alice', workspaceId: 'ws_2' };

function table(
  options: { idleMs?: number; maxSessions?: number; maxSessionsPerAgent?: number } = {},
) {
  const clock = { now: 1_000_000 };
  const sessions = new SessionTable({
    idleMs: options.idleMs ?? 1_000,
    maxSessions: options.maxSessions ?? 100,
    maxSessionsPerAgent: options.maxSessionsPerAgent ?? 100,
    now: () => clock.now,
  });
  return { sessions, clock };
}

describe('the session table', () => {
  it('gives a session only to the principal that opened it', () => {
    const { sessions } = table();
    const session = sessions.open(ALICE, '2025-11-25');
    expect(sessions.use(session.id, ALICE)).toBe(session);
    expect(sessions.use(session.id, BOB)).toBeUndefined();
    expect(sessions.use(session.id, ALICE_ELSEWHERE)).toBeUndefined();
    expect(sessions.use('no-such-session', ALICE)).toBeUndefined();
  });

  it('issues distinct visible-ASCII ids', () => {
    const { sessions } = table();
    const ids = new Set(Array.from({ length: 50 }, () => sessions.open(ALICE, '2025-11-25').id));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^[\x21-\x7e]+$/);
  });

  it('ends a session left idle, but not one used in time', () => {
    const { sessions, clock } = table({ idleMs: 1_000 });
    const idle = sessions.open(ALICE, '2025-11-25');
    const busy = sessions.open(ALICE, '2025-11-25');
    clock.now += 999;
    expect(sessions.use(busy.id, ALICE)).toBe(busy);
    clock.now += 1;
    expect(sessions.use(idle.id, ALICE)).toBeUndefined();
    expect(sessions.use(busy.id, ALICE)).toBe(busy);
  });

  it('sweeps idle sessions away, keeping those with running calls', () => {
    const { sessions, clock } = table({ idleMs: 1_000 });
    sessions.open(ALICE, '2025-11-25');
    const running = sessions.open(BOB, '2025-11-25');
    running.running.set(1, new Cancellation());
    clock.now += 5_000;
    sessions.sweep();
    expect(sessions.size).toBe(1);
    expect(sessions.use(running.id, BOB)).toBe(running);
  });

  it('evicts the least recently used session when full', () => {
    const { sessions, clock } = table({ maxSessions: 2 });
    const first = sessions.open(ALICE, '2025-11-25');
    const second = sessions.open(BOB, '2025-11-25');
    clock.now += 1;
    sessions.use(first.id, ALICE);
    const third = sessions.open(ALICE, '2025-11-25');
    expect(sessions.size).toBe(2);
    expect(sessions.use(second.id, BOB)).toBeUndefined();
    expect(sessions.use(first.id, ALICE)).toBe(first);
    expect(sessions.use(third.id, ALICE)).toBe(third);
  });

  it('aborts running calls when a session ends', () => {
    const { sessions } = table();
    const session = sessions.open(ALICE, '2025-11-25');
    const call = new Cancellation();
    session.running.set('call-1', call);
    sessions.end(session);
    expect(call.cancelled).toBe(true);
    expect(sessions.use(session.id, ALICE)).toBeUndefined();
  });

  it("evicts an agent's own least recently used session when it holds its share, no one else's", () => {
    const { sessions, clock } = table({ maxSessionsPerAgent: 2 });
    const bobs = sessions.open(BOB, '2025-11-25');
    const first = sessions.open(ALICE, '2025-11-25');
    const second = sessions.open(ALICE, '2025-11-25');
    const elsewhere = sessions.open(ALICE_ELSEWHERE, '2025-11-25');
    clock.now += 1;
    sessions.use(first.id, ALICE);
    const third = sessions.open(ALICE, '2025-11-25');
    expect(sessions.use(second.id, ALICE)).toBeUndefined();
    expect(sessions.use(first.id, ALICE)).toBe(first);
    expect(sessions.use(third.id, ALICE)).toBe(third);
    expect(sessions.use(bobs.id, BOB)).toBe(bobs);
    expect(sessions.use(elsewhere.id, ALICE_ELSEWHERE)).toBe(elsewhere);
    // Ending sessions gives the share back.
    sessions.end(first);
    sessions.end(third);
    const [fourth, fifth] = [
      sessions.open(ALICE, '2025-11-25'),
      sessions.open(ALICE, '2025-11-25'),
    ];
    expect(sessions.use(fourth.id, ALICE)).toBe(fourth);
    expect(sessions.use(fifth.id, ALICE)).toBe(fifth);
  });

  it('refuses nonsense limits', () => {
    const limits = { idleMs: 1, maxSessions: 1, maxSessionsPerAgent: 1 };
    expect(() => new SessionTable({ ...limits, idleMs: 0 })).toThrow(TypeError);
    expect(() => new SessionTable({ ...limits, maxSessions: 0.5 })).toThrow(TypeError);
    expect(() => new SessionTable({ ...limits, maxSessionsPerAgent: 0 })).toThrow(TypeError);
  });
});
