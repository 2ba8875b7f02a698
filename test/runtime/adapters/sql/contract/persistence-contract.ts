/** What survives a restart, and opening a database that is already migrated. */
import { describe, expect, it } from 'vitest';
import {
  aConnection,
  aGrant,
  anAgent,
  anEvent,
  aWorkspace,
} from '../../../../support/store-fixtures.ts';
import type { StoreSubject } from '../store-contract.ts';

export function describePersistenceContract(subject: StoreSubject): void {
  describe('persistence', () => {
    it('keeps every row and the revision across a restart', async () => {
      const { store } = subject;
      await store.workspaces.create(aWorkspace());
      await store.agents.create(anAgent(), 'hash_1');
      await store.connections.create(aConnection({ settings: { metro: 'fra0' } }));
      await store.grants.create(aGrant({ scope: 'actions', actions: ['instances_list'] }));
      const eventId = await store.audit.append(anEvent());
      const revision = await store.revision();
      await subject.close(store);

      const reopened = await subject.open();
      expect(await reopened.revision()).toBe(revision);
      expect(await reopened.agents.byKeyHash('hash_1')).toEqual(anAgent());
      expect(await reopened.connections.byId('ws_1', 'conn_1')).toEqual(
        aConnection({ settings: { metro: 'fra0' } }),
      );
      expect(await reopened.grants.all()).toEqual([
        aGrant({ scope: 'actions', actions: ['instances_list'] }),
      ]);
      expect((await reopened.audit.query({})).map((event) => event.id)).toEqual([eventId]);
      expect(await reopened.audit.append(anEvent())).toBeGreaterThan(eventId);
    });

    it('opens an already migrated database again, while it is open, without touching its rows', async () => {
      const { store } = subject;
      await store.workspaces.create(aWorkspace());
      const revision = await store.revision();
      const second = await subject.open();
      const third = await subject.open();
      expect(await third.workspaces.list()).toEqual([aWorkspace()]);
      expect(await second.revision()).toBe(revision);
      await second.settings.put('k', 'v');
      expect(await store.settings.get('k')).toBe('v');
    });
  });
}
