/** Calls held for approval (migrations 0022 and 0027): kept whole, changed by one compare-and-set. */
import { describe, expect, it } from 'vitest';
import type { Approval } from '../../../../../runtime/core/model/approvals.ts';
import type { StoreSubject } from '../store-contract.ts';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:01.000Z';
const LATER = '2026-01-01T01:00:00.000Z';

function anApproval(overrides: Partial<Approval> = {}): Approval {
  return {
    id: 'apr_1',
    workspaceId: 'ws_1',
    agentId: 'agt_1',
    memberId: null,
    connectionId: 'con_1',
    action: 'unikraft_delete_volumes',
    classification: 'destructive',
    argumentsHash: 'a'.repeat(64),
    arguments: '{"body":[{"name":"v"}]}',
    shownArguments: '{"body":[{"name":"v"}]}',
    state: 'pending',
    taskRef: 'ref-1',
    callContext: '{"via":"access_token","scopes":["tools:write"],"era":"modern"}',
    deliveredAt: null,
    decidedBy: null,
    decidedAt: null,
    reason: null,
    createdAt: T0,
    expiresAt: '2026-01-01T00:15:00.000Z',
    executedAt: null,
    ...overrides,
  };
}

export function describeApprovalContract(subject: StoreSubject): void {
  describe('approvals', () => {
    it('keeps an approval whole (its call context too), by id and by task', async () => {
      const { store } = subject;
      await store.approvals.create(anApproval());
      await store.approvals.create(anApproval({ id: 'apr_2', taskRef: null, callContext: null }));
      expect(await store.approvals.byId('apr_1')).toEqual(anApproval());
      expect(await store.approvals.byTaskRef('ref-1')).toEqual(anApproval());
      expect(await store.approvals.byId('apr_2')).toEqual(
        anApproval({ id: 'apr_2', taskRef: null, callContext: null }),
      );
    });

    it('lets one of two concurrent claims of an approved call win, never one past its time', async () => {
      const { store } = subject;
      await store.approvals.create(anApproval({ state: 'approved' }));
      const claim = () =>
        store.approvals.change('apr_1', ['approved'], { state: 'executed', executedAt: T1 }, T1);
      expect((await Promise.all([claim(), claim()])).filter(Boolean)).toHaveLength(1);
      expect((await store.approvals.byId('apr_1'))?.state).toBe('executed');
      await store.approvals.create(anApproval({ id: 'apr_3', state: 'approved' }));
      expect(
        await store.approvals.change('apr_3', ['approved'], { state: 'executed' }, LATER),
      ).toBe(false);
    });
  });
}
