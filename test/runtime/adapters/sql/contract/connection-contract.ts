/** Connections, and what removing one takes with it. */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  aConnection,
  aCredential,
  aGrant,
  anAgent,
  aPolicy,
  aWorkspace,
  reasonOf,
  T1,
  T2,
} from '../../../../support/store-fixtures.ts';
import type { StoreSubject } from '../store-contract.ts';

/** Two workspaces; ws_1 holds agents agt_1, agt_2; ws_2 holds agt_9 and conn_9. */
export async function twoWorkspaces(subject: StoreSubject): Promise<void> {
  const { store } = subject;
  await store.workspaces.create(aWorkspace());
  await store.workspaces.create(aWorkspace({ id: 'ws_2', name: 'second' }));
  await store.agents.create(anAgent(), 'hash_1');
  await store.agents.create(anAgent({ id: 'agt_2', name: 'reviewer' }), 'hash_2');
  await store.agents.create(anAgent({ id: 'agt_9', workspaceId: 'ws_2' }), 'hash_9');
  await store.connections.create(aConnection({ id: 'conn_9', workspaceId: 'ws_2' }));
}

export function describeConnectionContract(subject: StoreSubject): void {
  describe('connection rows', () => {
    beforeEach(() => twoWorkspaces(subject));

    describe('connections', () => {
      it('are found by id and name within their workspace, and listed by name', async () => {
        const { store } = subject;
        await store.connections.create(aConnection({ id: 'conn_z', name: 'zulu' }));
        await store.connections.create(aConnection());
        expect(await store.connections.byId('ws_1', 'conn_1')).toEqual(aConnection());
        expect(await store.connections.byId('ws_2', 'conn_1')).toBeUndefined();
        expect(await store.connections.byName('ws_1', 'zulu')).toEqual(
          aConnection({ id: 'conn_z', name: 'zulu' }),
        );
        expect(await store.connections.byName('ws_1', 'none')).toBeUndefined();
        expect((await store.connections.list('ws_1')).map((c) => c.id)).toEqual([
          'conn_1',
          'conn_z',
        ]);
        expect((await store.connections.all()).map((c) => c.id)).toEqual([
          'conn_1',
          'conn_z',
          'conn_9',
        ]);
      });

      it.each([
        ['empty', {}],
        ['several', { metro: 'fra0', region: 'eu-central', note: 'a "quoted", \\ back' }],
        ['non-ASCII', { label: 'Zürich ☃ 東京 🚀', empty: '' }],
      ])('keep %s settings as given', async (_, settings) => {
        const { store } = subject;
        await store.connections.create(aConnection({ settings }));
        expect((await store.connections.byId('ws_1', 'conn_1'))?.settings).toEqual(settings);
      });

      it('update settings, status and updatedAt, leaving out what the change leaves out', async () => {
        const { store } = subject;
        await store.connections.create(aConnection());
        expect(
          await store.connections.update('ws_1', 'conn_1', { status: 'active', updatedAt: T1 }),
        ).toBe(true);
        expect(await store.connections.byId('ws_1', 'conn_1')).toEqual(
          aConnection({ status: 'active', updatedAt: T1 }),
        );
        const settings = { metro: 'sin0' };
        expect(await store.connections.update('ws_1', 'conn_1', { settings, updatedAt: T2 })).toBe(
          true,
        );
        expect(await store.connections.byId('ws_1', 'conn_1')).toEqual(
          aConnection({ status: 'active', settings, updatedAt: T2 }),
        );
      });

      it('are not updated or removed from another workspace or when unknown', async () => {
        const { store } = subject;
        await store.connections.create(aConnection());
        const change = { status: 'disabled' as const, updatedAt: T1 };
        expect(await store.connections.update('ws_2', 'conn_1', change)).toBe(false);
        expect(await store.connections.update('ws_1', 'conn_none', change)).toBe(false);
        expect(await store.connections.remove('ws_2', 'conn_1')).toBe(false);
        expect(await store.connections.remove('ws_1', 'conn_none')).toBe(false);
        expect(await store.connections.byId('ws_1', 'conn_1')).toEqual(aConnection());
      });

      it('record health and the failure streak', async () => {
        const { store } = subject;
        await store.connections.create(aConnection());
        await store.connections.recordHealth('conn_1', 'degraded', 3, T1);
        expect(await store.connections.byId('ws_1', 'conn_1')).toEqual(
          aConnection({ health: 'degraded', failureStreak: 3 }),
        );
      });

      it('are removed', async () => {
        const { store } = subject;
        await store.connections.create(aConnection());
        expect(await store.connections.remove('ws_1', 'conn_1')).toBe(true);
        expect(await store.connections.byId('ws_1', 'conn_1')).toBeUndefined();
        expect(await store.connections.list('ws_1')).toEqual([]);
      });

      it.each([
        ['a name taken in the workspace', aConnection({ id: 'conn_2' }), 'conflict', 'name'],
        ['a taken id', aConnection({ id: 'conn_9', name: 'other' }), 'conflict', 'id'],
        [
          'an unknown workspace',
          aConnection({ id: 'conn_2', name: 'other', workspaceId: 'ws_none' }),
          'not_found',
          'workspace',
        ],
      ])('refuse %s', async (_, second, code, field) => {
        const { store } = subject;
        await store.connections.create(aConnection());
        expect(await reasonOf(store.connections.create(second))).toEqual({ code, field });
        expect(await store.connections.list('ws_1')).toHaveLength(1);
      });
    });

    describe('removing a connection', () => {
      it('removes its credentials, grants and policies, and nothing else', async () => {
        const { store } = subject;
        await store.connections.create(aConnection());
        await store.connections.create(aConnection({ id: 'conn_2', name: 'github' }));
        for (const connectionId of ['conn_1', 'conn_2']) {
          await store.credentials.put(aCredential({ connectionId }));
          await store.credentials.put(aCredential({ connectionId, agentId: 'agt_1' }));
          await store.grants.create(aGrant({ id: `grt_${connectionId}`, connectionId }));
          await store.policies.put(aPolicy({ connectionId }));
        }
        await store.audit.append({
          at: T1,
          workspaceId: 'ws_1',
          actorKind: 'operator',
          actorId: null,
          action: 'connection.remove',
          subject: 'conn_1',
          connectionId: 'conn_1',
          decision: 'allowed',
          reason: null,
          outcome: 'ok',
          upstreamHost: null,
          upstreamAddress: null,
          upstreamStatus: null,
          latencyMs: null,
          requestBytes: null,
          replyBytes: null,
          argumentHash: null,
          traceparent: null,
          via: null,
        });

        expect(await store.connections.remove('ws_1', 'conn_1')).toBe(true);

        expect((await store.credentials.all()).map((c) => c.connectionId)).toEqual([
          'conn_2',
          'conn_2',
        ]);
        expect((await store.grants.all()).map((g) => g.connectionId)).toEqual(['conn_2']);
        expect((await store.policies.all()).map((p) => p.connectionId)).toEqual(['conn_2']);
        expect(await store.audit.query({ connectionId: 'conn_1' })).toHaveLength(1);
        expect(await store.agents.list('ws_1')).toHaveLength(2);
      });
    });
  });
}
