/** Calls held for approval (migrations 0022 and 0027): kept whole, changed by one compare-and-set. */
import { describe, expect, it } from 'vitest';
import type { Approval } from '../../../../../runtime/core/model/approvals.ts';
import { anApproval as approvalOf } from '../../../../support/store-fixtures.ts';
import type { StoreSubject } from '../store-contract.ts';

const T1 = '2025-01-01T00:00:01.000Z';
const LATER = '2025-01-01T01:00:00.000Z';
/** The call `anApproval` holds. */
const KEY = {
  agentId: 'agt_1',
  connectionId: 'con_1',
  action: 'unikraft_delete_volumes',
  argumentsHash: 'a'.repeat(64),
};

/** An approval of a call that answered a task, its call context kept. */
function anApproval(overrides: Partial<Approval> = {}): Approval {
  return approvalOf({
    taskRef: 'ref-1',
    callContext: '{"via":"access_token","scopes":["tools:write"],"era":"modern","task":true}',
    ...overrides,
  });
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

    it("marks an executed call's result given once, and only once it ran", async () => {
      const { store } = subject;
      await store.approvals.create(anApproval({ state: 'approved' }));
      expect(await store.approvals.deliver('apr_1', T1)).toBe(false);
      await store.approvals.change(
        'apr_1',
        ['approved'],
        { state: 'executed', executedAt: T1 },
        T1,
      );
      const deliver = () => store.approvals.deliver('apr_1', T1);
      expect((await Promise.all([deliver(), deliver()])).filter(Boolean)).toHaveLength(1);
      expect((await store.approvals.byId('apr_1'))?.deliveredAt).toBe(T1);
      expect(await deliver()).toBe(false);
    });

    it("marks a denied call's refusal told once, never a pending one's", async () => {
      const { store } = subject;
      await store.approvals.create(anApproval({ id: 'apr_4' }));
      expect(await store.approvals.deliver('apr_4', T1)).toBe(false);
      await store.approvals.change('apr_4', ['pending'], { state: 'denied', reason: 'no' }, T1);
      const deliver = () => store.approvals.deliver('apr_4', T1);
      expect((await Promise.all([deliver(), deliver()])).filter(Boolean)).toHaveLength(1);
      expect((await store.approvals.byId('apr_4'))?.deliveredAt).toBe(T1);
    });

    it("marks an expired call's refusal told once, past its time or expired by the sweep", async () => {
      const { store } = subject;
      await store.approvals.create(anApproval({ id: 'apr_5', createdAt: T1 }));
      await store.approvals.create(anApproval({ id: 'apr_6', state: 'expired' }));
      expect(await store.approvals.deliver('apr_5', T1)).toBe(false);
      // Past its time it is found only when asked without a time, the newest first.
      expect(await store.approvals.latestFor(KEY, ['pending', 'expired'], LATER)).toBeUndefined();
      expect((await store.approvals.latestFor(KEY, ['pending', 'expired'], undefined))?.id).toBe(
        'apr_5',
      );
      for (const id of ['apr_5', 'apr_6']) {
        const deliver = () => store.approvals.deliver(id, LATER);
        expect((await Promise.all([deliver(), deliver()])).filter(Boolean)).toHaveLength(1);
        expect((await store.approvals.byId(id))?.deliveredAt).toBe(LATER);
      }
    });
  });
}
