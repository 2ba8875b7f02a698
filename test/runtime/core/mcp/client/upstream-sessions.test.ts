/** Upstream sessions: one initialisation per key however many ask, and forgetting only the session that failed. */
import { describe, expect, it } from 'vitest';
import type { UpstreamSession } from '../../../../../runtime/core/mcp/client/upstream-client.ts';
import {
  sessionKey,
  UpstreamSessions,
} from '../../../../../runtime/core/mcp/client/upstream-sessions.ts';

const session = (id: string): UpstreamSession => ({
  era: 'legacy',
  revision: '2025-11-25',
  sessionId: id,
});

describe('upstream sessions', () => {
  it('coalesce concurrent initialisations of one key', async () => {
    const sessions = new UpstreamSessions();
    let opened = 0;
    const open = async () => {
      opened++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return session(`s${opened}`);
    };
    const key = sessionKey('conn_1', 'who');
    const got = await Promise.all([
      sessions.get(key, open),
      sessions.get(key, open),
      sessions.get(key, open),
    ]);
    expect(opened).toBe(1);
    expect(new Set(got).size).toBe(1);
  });

  it('forget a session only while the key still holds it', async () => {
    const sessions = new UpstreamSessions();
    const key = sessionKey('conn_1', 'who');
    const first = await sessions.get(key, async () => session('s1'));
    expect(sessions.forget(key, first)).toBe(true);
    const second = await sessions.get(key, async () => session('s2'));
    // A late failure of the old session leaves the newer one alone.
    expect(sessions.forget(key, first)).toBe(false);
    expect(await sessions.get(key, async () => session('s3'))).toBe(second);
  });

  it("leave another identity's session and an initialisation in progress alone", async () => {
    const sessions = new UpstreamSessions();
    const mine = sessionKey('conn_1', 'alice');
    const theirs = sessionKey('conn_1', 'bob');
    const failed = await sessions.get(mine, async () => session('a1'));
    let finish: (s: UpstreamSession) => void = () => {};
    const opening = sessions.get(theirs, () => new Promise((resolve) => (finish = resolve)));
    expect(sessions.forget(mine, failed)).toBe(true);
    expect(sessions.forget(theirs, failed)).toBe(false);
    finish(session('b1'));
    expect((await opening) as { sessionId: string }).toMatchObject({ sessionId: 'b1' });
    expect(sessions.size).toBe(1);
  });

  it('forget every session of a connection at once', async () => {
    const sessions = new UpstreamSessions();
    await sessions.get(sessionKey('conn_1', 'a'), async () => session('a'));
    await sessions.get(sessionKey('conn_1', 'b'), async () => session('b'));
    await sessions.get(sessionKey('conn_2', 'a'), async () => session('c'));
    expect(sessions.forgetConnection('conn_1')).toHaveLength(2);
    expect(sessions.size).toBe(1);
  });

  it("replace a key's session when its credential identity changes, one entry however often", async () => {
    const ended: UpstreamSession[] = [];
    const sessions = new UpstreamSessions({ retired: (retired) => ended.push(retired) });
    const key = sessionKey('conn_1', '');
    const opened: UpstreamSession[] = [];
    for (const identity of ['token-1', 'token-2', 'token-3']) {
      const got = await sessions.use(key, identity, async () => session(identity));
      sessions.release(got);
      opened.push(got);
      expect(sessions.size).toBe(1);
    }
    expect(ended).toEqual(opened.slice(0, 2));
    // The same identity again: the same session.
    const again = await sessions.use(key, 'token-3', async () => session('other'));
    expect(again).toBe(opened[2]);
  });

  it('end a replaced session only after the last call running on it is done', async () => {
    const ended: UpstreamSession[] = [];
    const sessions = new UpstreamSessions({ retired: (retired) => ended.push(retired) });
    const key = sessionKey('conn_1', '');
    const old = await sessions.use(key, 'old', async () => session('s1'));
    const alsoOld = await sessions.use(key, 'old', async () => session('unused'));
    expect(alsoOld).toBe(old);
    const fresh = await sessions.use(key, 'new', async () => session('s2'));
    expect(ended).toEqual([]);
    sessions.release(old);
    expect(ended).toEqual([]);
    expect(sessions.retiring).toBe(1);
    sessions.release(alsoOld);
    expect(ended).toEqual([old]);
    expect(sessions.retiring).toBe(0);
    sessions.release(fresh);
    expect(ended).toEqual([old]);
  });

  it('retire a key only while it holds the identity it was asked about', async () => {
    const ended: UpstreamSession[] = [];
    const sessions = new UpstreamSessions({ retired: (retired) => ended.push(retired) });
    const key = sessionKey('conn_1', 'agent_1');
    const current = await sessions.use(key, 'new', async () => session('s1'));
    sessions.release(current);
    expect(sessions.retireKey(key, 'old')).toBe(false);
    expect(sessions.retireKey(key, 'new')).toBe(true);
    expect(ended).toEqual([current]);
    expect(sessions.size).toBe(0);
  });
});
