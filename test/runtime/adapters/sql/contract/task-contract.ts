/** Tasks that an in-process producer works on (migration 0021). */
import { describe, expect, it } from 'vitest';
import type { TaskRecord } from '../../../../../runtime/core/model/tasks.ts';
import type { StoreSubject } from '../store-contract.ts';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:01.000Z';
const LATER = '2026-01-01T01:00:00.000Z';

function aTask(overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    ref: 'ref-1',
    purpose: 'approval',
    workspaceId: 'ws_1',
    agentId: 'agt_1',
    connectionId: 'con_1',
    action: 'unikraft_delete_instance',
    status: 'working',
    statusMessage: 'waiting for an approver',
    result: null,
    error: null,
    inputRequests: null,
    pollIntervalMs: 1000,
    createdAt: T0,
    lastUpdatedAt: T0,
    expiresAt: LATER,
    follows: null,
    ...overrides,
  };
}

export function describeTaskContract(subject: StoreSubject): void {
  describe('tasks', () => {
    it('keeps a task whole, found by its ref until it expires', async () => {
      const { store } = subject;
      await store.tasks.create(aTask());
      expect(await store.tasks.byRef('ref-1', T1)).toEqual(aTask());
      expect(await store.tasks.byRef('ref-1', LATER)).toBeUndefined();
      expect(await store.tasks.byRef('ref-2', T1)).toBeUndefined();
    });

    it('changes a task only from the statuses named, and never once it expired', async () => {
      const { store } = subject;
      await store.tasks.create(aTask());
      const done = { status: 'completed' as const, result: '{"content":[]}', lastUpdatedAt: T1 };
      expect(await store.tasks.change('ref-1', ['input_required'], done, T1)).toBe(false);
      expect(await store.tasks.change('ref-1', ['working'], done, T1)).toBe(true);
      expect(await store.tasks.byRef('ref-1', T1)).toEqual(
        aTask({ status: 'completed', result: '{"content":[]}', lastUpdatedAt: T1 }),
      );
      // Completed is not working any more: a second settlement finds nothing to change.
      expect(
        await store.tasks.change('ref-1', ['working'], { status: 'failed', lastUpdatedAt: T1 }, T1),
      ).toBe(false);
      await store.tasks.create(aTask({ ref: 'ref-2' }));
      expect(await store.tasks.change('ref-2', ['working'], done, LATER)).toBe(false);
      expect(await store.tasks.change('ref-2', [], done, T1)).toBe(false);
    });

    it('keeps the task a task follows (migration 0028)', async () => {
      const { store } = subject;
      await store.tasks.create(aTask());
      const follow = { follows: 'pct1.remote', lastUpdatedAt: T1 };
      expect(await store.tasks.change('ref-1', ['working'], follow, T1)).toBe(true);
      expect((await store.tasks.byRef('ref-1', T1))?.follows).toBe('pct1.remote');
    });

    it('lets one of concurrent changes from the same status win', async () => {
      const { store } = subject;
      await store.tasks.create(aTask());
      const other = await subject.open();
      const outcomes = await Promise.all([
        store.tasks.change('ref-1', ['working'], { status: 'completed', lastUpdatedAt: T1 }, T1),
        other.tasks.change('ref-1', ['working'], { status: 'cancelled', lastUpdatedAt: T1 }, T1),
      ]);
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      await subject.close(other);
    });

    it('prunes the tasks that expired, and only those', async () => {
      const { store } = subject;
      await store.tasks.create(aTask({ ref: 'old', expiresAt: T1 }));
      await store.tasks.create(aTask({ ref: 'live' }));
      expect(await store.tasks.prune('2026-01-01T00:00:30.000Z')).toBe(1);
      expect(await store.tasks.byRef('live', T1)).toBeDefined();
      expect(await store.tasks.byRef('old', T0)).toBeUndefined();
    });
  });
}
