/** `transaction(work)`: all of its writes land, or none. */
import { describe, expect, it } from 'vitest';
import {
  aConnection,
  anAgent,
  anEvent,
  aWorkspace,
  reasonOf,
} from '../../../../support/store-fixtures.ts';
import type { StoreSubject } from '../store-contract.ts';

export function describeTransactionContract(subject: StoreSubject): void {
  describe('transactions', () => {
    it('commit every write and return what the work returns', async () => {
      const { store } = subject;
      const result = await store.transaction(async (tx) => {
        await tx.workspaces.create(aWorkspace());
        await tx.agents.create(anAgent(), 'hash_1');
        expect(await tx.agents.byKeyHash('hash_1')).toEqual(anAgent());
        return 'done';
      });
      expect(result).toBe('done');
      expect(await store.agents.byKeyHash('hash_1')).toEqual(anAgent());
    });

    it('write nothing when the work throws, and pass the error on', async () => {
      const { store } = subject;
      const before = await store.revision();
      const failure = new Error('changed my mind');
      const outcome = store.transaction(async (tx) => {
        await tx.workspaces.create(aWorkspace());
        await tx.agents.create(anAgent(), 'hash_1');
        await tx.connections.create(aConnection());
        await tx.settings.put('default_workspace', 'ws_1');
        await tx.audit.append(anEvent());
        throw failure;
      });
      await expect(outcome).rejects.toBe(failure);
      expect(await store.workspaces.list()).toEqual([]);
      expect(await store.agents.all()).toEqual([]);
      expect(await store.connections.all()).toEqual([]);
      expect(await store.settings.get('default_workspace')).toBeUndefined();
      expect(await store.audit.query({})).toEqual([]);
      expect(await store.revision()).toBe(before);
    });

    it('run a nested transaction as part of the outer one', async () => {
      const { store } = subject;
      const failure = new Error('outer fails');
      const outcome = store.transaction(async (tx) => {
        await tx.transaction(async (inner) => {
          await inner.workspaces.create(aWorkspace());
        });
        expect(await tx.workspaces.byId('ws_1')).toEqual(aWorkspace());
        throw failure;
      });
      await expect(outcome).rejects.toBe(failure);
      expect(await store.workspaces.list()).toEqual([]);
    });

    it('undo only a nested transaction that throws, when the outer one catches it', async () => {
      const { store } = subject;
      const failure = new Error('inner fails');
      await store.transaction(async (tx) => {
        await tx.workspaces.create(aWorkspace());
        const inner = tx.transaction(async (nested) => {
          await nested.agents.create(anAgent(), 'hash_1');
          await nested.settings.put('default_workspace', 'ws_1');
          throw failure;
        });
        await expect(inner).rejects.toBe(failure);
        expect(await tx.agents.all()).toEqual([]);
      });
      expect(await store.workspaces.list()).toEqual([aWorkspace()]);
      expect(await store.agents.all()).toEqual([]);
      expect(await store.settings.get('default_workspace')).toBeUndefined();
    });

    it('go on after a refused write the work caught, undoing only that write', async () => {
      const { store } = subject;
      const before = await store.revision();
      await store.transaction(async (tx) => {
        await tx.workspaces.create(aWorkspace());
        expect(await reasonOf(tx.workspaces.create(aWorkspace({ id: 'ws_2' })))).toEqual({
          code: 'conflict',
          field: 'name',
        });
        expect(await reasonOf(tx.agents.create(anAgent({ workspaceId: 'ws_none' }), 'h'))).toEqual({
          code: 'not_found',
          field: 'workspace',
        });
        await tx.agents.create(anAgent(), 'hash_1');
      });
      expect(await store.workspaces.list()).toEqual([aWorkspace()]);
      expect(await store.agents.all()).toEqual([{ ...anAgent(), keyHash: 'hash_1' }]);
      expect(await store.revision()).toBeGreaterThan(before);
    });
  });
}
