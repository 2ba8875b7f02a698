/**
 * One watcher of the store's revision: however many parts listen (the tool
 * list watch, the upstream session sweep), each tick reads the governance
 * once and gives every listener that snapshot; no listener with anything to
 * check for, no read; the last one gone, no tick. Unit tests with a counting
 * governance reader and the clock in the test's hands.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GovernanceSnapshot } from '../../../../runtime/core/governance/snapshot.ts';
import type { UpstreamClient } from '../../../../runtime/core/mcp/client/upstream-client.ts';
import {
  sessionKey,
  UpstreamSessions,
} from '../../../../runtime/core/mcp/client/upstream-sessions.ts';
import { RevisionWatch } from '../../../../runtime/core/pipeline/revision-watch.ts';
import { UpstreamSessionSweep } from '../../../../runtime/core/pipeline/session-sweep.ts';
import { ToolWatch } from '../../../../runtime/core/pipeline/tool-watch.ts';

const INTERVAL_MS = 500;

/** A governance reader that counts its reads; each read a snapshot of the revision set now. */
function counting() {
  const governance = {
    reads: 0,
    revision: 1,
    current: async () => {
      governance.reads++;
      return {
        revision: governance.revision,
        hasConnection: () => true,
        agentById: () => undefined,
        visibleTools: () => [],
      } as unknown as GovernanceSnapshot;
    },
  };
  return governance;
}

/** A listener that always has something to check for, and keeps what it was given. */
function recording() {
  const seen: GovernanceSnapshot[] = [];
  return {
    seen,
    listener: { beforeCheck: () => true, checked: (s: GovernanceSnapshot) => void seen.push(s) },
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the revision watch', () => {
  it('reads once per tick for two listeners, and gives both the same snapshot', async () => {
    const governance = counting();
    const watch = new RevisionWatch(governance, { intervalMs: INTERVAL_MS });
    const first = recording();
    const second = recording();
    watch.listen(first.listener);
    watch.listen(second.listener);
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(governance.reads).toBe(1);
    expect(first.seen).toHaveLength(1);
    expect(second.seen[0]).toBe(first.seen[0]);
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(governance.reads).toBe(2);
    await watch.close();
  });

  it('reads nothing while no listener has anything to check for, and only for those that do', async () => {
    const governance = counting();
    const watch = new RevisionWatch(governance, { intervalMs: INTERVAL_MS });
    let busy = false;
    const idle = { beforeCheck: () => busy, checked: vi.fn() };
    watch.listen(idle);
    await vi.advanceTimersByTimeAsync(INTERVAL_MS * 3);
    expect(governance.reads).toBe(0);
    const other = recording();
    watch.listen(other.listener);
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(governance.reads).toBe(1);
    expect(idle.checked).not.toHaveBeenCalled();
    busy = true;
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(idle.checked).toHaveBeenCalledTimes(1);
    await watch.close();
  });

  it('shares one read among checks asked for at once', async () => {
    const governance = counting();
    const watch = new RevisionWatch(governance, { intervalMs: INTERVAL_MS });
    watch.listen(recording().listener);
    await Promise.all([watch.check(), watch.check(), watch.check()]);
    expect(governance.reads).toBe(1);
    await watch.close();
  });

  it('stops ticking when the last listener leaves', async () => {
    const governance = counting();
    const watch = new RevisionWatch(governance, { intervalMs: INTERVAL_MS });
    const stop = watch.listen(recording().listener);
    stop();
    await vi.advanceTimersByTimeAsync(INTERVAL_MS * 4);
    expect(governance.reads).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('tells the other listeners when one fails, and reports it', async () => {
    const governance = counting();
    const report = vi.fn();
    const watch = new RevisionWatch(governance, { intervalMs: INTERVAL_MS, report });
    watch.listen({
      beforeCheck: () => true,
      checked: () => {
        throw new Error('listener failed');
      },
    });
    const other = recording();
    watch.listen(other.listener);
    await watch.check();
    expect(other.seen).toHaveLength(1);
    expect(report).toHaveBeenCalledTimes(1);
    await watch.close();
  });
});

describe('the tool list watch and the upstream session sweep', () => {
  it('both listening, make one read per tick between them', async () => {
    const governance = counting();
    const revisions = new RevisionWatch(governance, { intervalMs: INTERVAL_MS });
    // An agent listens for tool list changes...
    const tools = new ToolWatch(revisions);
    tools.watch({ agentId: 'agt_1', workspaceId: 'ws_1' }, () => {});
    // ...while an upstream session is held.
    const sessions = new UpstreamSessions();
    await sessions.get(sessionKey('conn_1', ''), async () => ({
      era: 'modern',
      revision: '2026-07-28',
    }));
    const sweep = new UpstreamSessionSweep({
      revisions,
      sessions,
      client: {} as UpstreamClient,
    });
    sweep.start();
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(governance.reads).toBe(1);
    governance.revision = 2;
    await vi.advanceTimersByTimeAsync(INTERVAL_MS * 3);
    expect(governance.reads).toBe(4);
    expect(vi.getTimerCount()).toBe(1);
    tools.close();
    await sweep.stop();
    await revisions.close();
  });
});
