/** Workspaces, agents, admin tokens and settings. */
import { describe, expect, it } from 'vitest';
import {
  aConnection,
  aCredential,
  aGrant,
  anAgent,
  anEvent,
  aWorkspace,
  reasonOf,
  T0,
  T1,
  T2,
} from '../../../../support/store-fixtures.ts';
import type { StoreSubject } from '../store-contract.ts';

export function describeIdentityContract(subject: StoreSubject): void {
  describe('workspaces', () => {
    it('are found by id and by name, and listed by name', async () => {
      const { store } = subject;
      await store.workspaces.create(aWorkspace({ id: 'ws_b', name: 'zeta' }));
      await store.workspaces.create(aWorkspace({ id: 'ws_a', name: 'alpha', createdAt: T1 }));
      expect(await store.workspaces.byId('ws_a')).toEqual({
        id: 'ws_a',
        name: 'alpha',
        createdAt: T1,
        toolsMode: 'direct',
      });
      expect(await store.workspaces.byName('zeta')).toEqual(
        aWorkspace({ id: 'ws_b', name: 'zeta' }),
      );
      expect((await store.workspaces.list()).map((w) => w.name)).toEqual(['alpha', 'zeta']);
    });

    it('keep the tools mode their agents follow, changed by setToolsMode', async () => {
      const { store } = subject;
      await store.workspaces.create(aWorkspace({ toolsMode: 'auto' }));
      expect((await store.workspaces.byId('ws_1'))?.toolsMode).toBe('auto');
      const revision = await store.revision();
      expect(await store.workspaces.setToolsMode('ws_1', 'discovery')).toBe(true);
      expect((await store.workspaces.byName('default'))?.toolsMode).toBe('discovery');
      // Agents' tool lists follow it: a governance change.
      expect(await store.revision()).toBeGreaterThan(revision);
      expect(await store.workspaces.setToolsMode('ws_none', 'direct')).toBe(false);
    });

    it('answer undefined for an unknown id or name', async () => {
      const { store } = subject;
      expect(await store.workspaces.byId('ws_none')).toBeUndefined();
      expect(await store.workspaces.byName('none')).toBeUndefined();
      expect(await store.workspaces.list()).toEqual([]);
    });

    it.each([
      ['a taken name', aWorkspace({ id: 'ws_2' }), 'name'],
      ['a taken id', aWorkspace({ name: 'other' }), 'id'],
    ])('refuse %s with conflict', async (_, second, field) => {
      const { store } = subject;
      await store.workspaces.create(aWorkspace());
      expect(await reasonOf(store.workspaces.create(second))).toEqual({ code: 'conflict', field });
      expect(await store.workspaces.list()).toHaveLength(1);
    });
  });

  describe('agents', () => {
    async function twoWorkspaces(): Promise<void> {
      await subject.store.workspaces.create(aWorkspace());
      await subject.store.workspaces.create(aWorkspace({ id: 'ws_2', name: 'second' }));
    }

    it("keep their own tools mode, null following their workspace's, within their workspace", async () => {
      const { store } = subject;
      await twoWorkspaces();
      await store.agents.create(anAgent(), 'hash-1');
      expect((await store.agents.byId('ws_1', 'agt_1'))?.toolsMode).toBeNull();
      expect(await store.agents.setToolsMode('ws_1', 'agt_1', 'discovery')).toBe(true);
      expect((await store.agents.byKeyHash('hash-1'))?.toolsMode).toBe('discovery');
      expect(await store.agents.setToolsMode('ws_2', 'agt_1', 'auto')).toBe(false);
      expect(await store.agents.setToolsMode('ws_1', 'agt_1', null)).toBe(true);
      expect((await store.agents.all())[0]?.toolsMode).toBeNull();
    });

    it('are found by id within their workspace, by key hash, and listed by name', async () => {
      const { store } = subject;
      await twoWorkspaces();
      await store.agents.create(anAgent({ id: 'agt_z', name: 'zed' }), 'hash_z');
      await store.agents.create(anAgent({ id: 'agt_a', name: 'ann' }), 'hash_a');
      await store.agents.create(anAgent({ id: 'agt_o', workspaceId: 'ws_2' }), 'hash_o');

      expect(await store.agents.byId('ws_1', 'agt_a')).toEqual(
        anAgent({ id: 'agt_a', name: 'ann' }),
      );
      expect(await store.agents.byId('ws_2', 'agt_a')).toBeUndefined();
      expect(await store.agents.byKeyHash('hash_o')).toEqual(
        anAgent({ id: 'agt_o', workspaceId: 'ws_2' }),
      );
      expect(await store.agents.byKeyHash('hash_none')).toBeUndefined();
      expect((await store.agents.list('ws_1')).map((a) => a.id)).toEqual(['agt_a', 'agt_z']);
      expect((await store.agents.list('ws_2')).map((a) => a.id)).toEqual(['agt_o']);
    });

    it('list every agent with its key hash', async () => {
      const { store } = subject;
      await twoWorkspaces();
      await store.agents.create(anAgent({ id: 'agt_o', workspaceId: 'ws_2' }), 'hash_o');
      await store.agents.create(anAgent(), 'hash_1');
      expect(await store.agents.all()).toEqual([
        { ...anAgent(), keyHash: 'hash_1' },
        { ...anAgent({ id: 'agt_o', workspaceId: 'ws_2' }), keyHash: 'hash_o' },
      ]);
    });

    it('are revoked once: revoking again keeps the first time', async () => {
      const { store } = subject;
      await twoWorkspaces();
      await store.agents.create(anAgent(), 'hash_1');
      expect(await store.agents.revoke('ws_1', 'agt_1', T1)).toBe(true);
      expect(await store.agents.revoke('ws_1', 'agt_1', T2)).toBe(true);
      expect(await store.agents.byKeyHash('hash_1')).toEqual(
        anAgent({ status: 'revoked', revokedAt: T1 }),
      );
    });

    it('are not revoked from another workspace or when unknown', async () => {
      const { store } = subject;
      await twoWorkspaces();
      await store.agents.create(anAgent(), 'hash_1');
      expect(await store.agents.revoke('ws_2', 'agt_1', T1)).toBe(false);
      expect(await store.agents.revoke('ws_1', 'agt_none', T1)).toBe(false);
      expect((await store.agents.byId('ws_1', 'agt_1'))?.status).toBe('active');
    });

    it('take a new key while active: the old hash finds nothing at once', async () => {
      const { store } = subject;
      await twoWorkspaces();
      await store.agents.create(anAgent(), 'hash_1');
      expect(await store.agents.replaceKey('ws_2', 'agt_1', 'pck_new', 'hash_new')).toBe(false);
      expect(await store.agents.replaceKey('ws_1', 'agt_1', 'pck_new', 'hash_new')).toBe(true);
      expect(await store.agents.byKeyHash('hash_1')).toBeUndefined();
      expect(await store.agents.byKeyHash('hash_new')).toEqual(anAgent({ keyPrefix: 'pck_new' }));
      await store.agents.revoke('ws_1', 'agt_1', T1);
      expect(await store.agents.replaceKey('ws_1', 'agt_1', 'pck_3', 'hash_3')).toBe(false);
    });

    it('are removed with their grants and personal credentials; the audit log stays', async () => {
      const { store } = subject;
      await twoWorkspaces();
      await store.agents.create(anAgent(), 'hash_1');
      await store.connections.create(aConnection());
      await store.grants.create(aGrant());
      await store.credentials.put(aCredential({ agentId: 'agt_1' }));
      await store.audit.append(anEvent({ actorKind: 'agent', actorId: 'agt_1' }));
      expect(await store.agents.remove('ws_2', 'agt_1')).toBe(false);
      expect(await store.agents.remove('ws_1', 'agt_1')).toBe(true);
      expect(await store.agents.remove('ws_1', 'agt_1')).toBe(false);
      expect(await store.agents.list('ws_1')).toEqual([]);
      expect(await store.grants.list('ws_1')).toEqual([]);
      expect(await store.credentials.forConnection('conn_1', 'agt_1')).toEqual([]);
      expect(await store.audit.query({ actorId: 'agt_1', limit: 10 })).toHaveLength(1);
      // Its name is free again.
      await store.agents.create(anAgent({ id: 'agt_2' }), 'hash_2');
    });

    it('may share a name across workspaces', async () => {
      const { store } = subject;
      await twoWorkspaces();
      await store.agents.create(anAgent(), 'hash_1');
      await store.agents.create(anAgent({ id: 'agt_2', workspaceId: 'ws_2' }), 'hash_2');
      expect(await store.agents.all()).toHaveLength(2);
    });

    it.each([
      ['a name taken in the workspace', anAgent({ id: 'agt_2' }), 'hash_2', 'name'],
      [
        'a key hash taken anywhere',
        anAgent({ id: 'agt_2', workspaceId: 'ws_2' }),
        'hash_1',
        'keyHash',
      ],
      ['a taken id', anAgent({ name: 'other' }), 'hash_2', 'id'],
    ])('refuse %s with conflict', async (_, second, keyHash, field) => {
      const { store } = subject;
      await twoWorkspaces();
      await store.agents.create(anAgent(), 'hash_1');
      expect(await reasonOf(store.agents.create(second, keyHash))).toEqual({
        code: 'conflict',
        field,
      });
      expect(await store.agents.all()).toHaveLength(1);
    });

    it('refuse an unknown workspace with not_found', async () => {
      const { store } = subject;
      expect(await reasonOf(store.agents.create(anAgent(), 'hash_1'))).toEqual({
        code: 'not_found',
        field: 'workspace',
      });
    });
  });

  describe('admin tokens', () => {
    it('are found by hash and counted', async () => {
      const { store } = subject;
      expect(await store.adminTokens.count()).toBe(0);
      await store.adminTokens.create('adm_1', 'hash_1', T0);
      await store.adminTokens.create('adm_2', 'hash_2', T0);
      expect(await store.adminTokens.byHash('hash_2')).toEqual({ id: 'adm_2' });
      expect(await store.adminTokens.byHash('hash_none')).toBeUndefined();
      expect(await store.adminTokens.count()).toBe(2);
    });

    it('are listed oldest first without their hash, and removed by id', async () => {
      const { store } = subject;
      await store.adminTokens.create('adm_2', 'hash_2', T1);
      await store.adminTokens.create('adm_1', 'hash_1', T0);
      expect(await store.adminTokens.list()).toEqual([
        { id: 'adm_1', createdAt: T0 },
        { id: 'adm_2', createdAt: T1 },
      ]);
      expect(await store.adminTokens.remove('adm_1')).toBe(true);
      expect(await store.adminTokens.remove('adm_1')).toBe(false);
      expect(await store.adminTokens.byHash('hash_1')).toBeUndefined();
      expect(await store.adminTokens.list()).toEqual([{ id: 'adm_2', createdAt: T1 }]);
    });

    it.each([
      ['a taken hash', 'adm_2', 'hash_1', 'tokenHash'],
      ['a taken id', 'adm_1', 'hash_2', 'id'],
    ])('refuse %s with conflict', async (_, id, hash, field) => {
      const { store } = subject;
      await store.adminTokens.create('adm_1', 'hash_1', T0);
      expect(await reasonOf(store.adminTokens.create(id, hash, T0))).toEqual({
        code: 'conflict',
        field,
      });
      expect(await store.adminTokens.count()).toBe(1);
    });
  });

  describe('settings', () => {
    it('are undefined until put, and put replaces', async () => {
      const { store } = subject;
      expect(await store.settings.get('default_workspace')).toBeUndefined();
      await store.settings.put('default_workspace', 'ws_1');
      await store.settings.put('other', 'x');
      await store.settings.put('default_workspace', 'ws_2');
      expect(await store.settings.get('default_workspace')).toBe('ws_2');
      expect(await store.settings.get('other')).toBe('x');
    });

    it('are read held (to seal under the key one names) as they are read, in a transaction or not', async () => {
      const { store } = subject;
      await store.settings.put('vault.current_key_id', 'k1');
      expect(await store.settings.getHeld('vault.current_key_id')).toBe('k1');
      expect(await store.settings.getHeld('missing')).toBeUndefined();
      const seen = await store.transaction(async (tx) => {
        const held = await tx.settings.getHeld('vault.current_key_id');
        await tx.settings.put('other', 'written after the held read');
        return held;
      });
      expect(seen).toBe('k1');
      expect(await store.settings.get('other')).toBe('written after the held read');
    });
  });
}
