/** What hangs off a connection: credentials, grants, action policies. */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  aConnection,
  aCredential,
  aGrant,
  aPolicy,
  failureOf,
  reasonOf,
  T1,
  T2,
} from '../../../../support/store-fixtures.ts';
import type { StoreSubject } from '../store-contract.ts';

import { twoWorkspaces } from './connection-contract.ts';

export function describeAccessContract(subject: StoreSubject): void {
  describe('access rows', () => {
    beforeEach(() => twoWorkspaces(subject));

    describe('credentials', () => {
      beforeEach(async () => {
        await subject.store.connections.create(aConnection());
      });

      const shared = aCredential();
      const personal = aCredential({ agentId: 'agt_1', sealed: 'v1.personal' });
      const otherAgent = aCredential({ agentId: 'agt_2', sealed: 'v1.other' });

      it('keep the shared credential apart from personal ones', async () => {
        const { store } = subject;
        const sharedSecret = aCredential({ field: 'secret', sealed: 'v1.secret' });
        await store.credentials.put(shared);
        await store.credentials.put(sharedSecret);
        await store.credentials.put(personal);
        await store.credentials.put(otherAgent);
        expect(await store.credentials.forConnection('conn_1', null)).toEqual([
          sharedSecret,
          shared,
        ]);
        expect(await store.credentials.forConnection('conn_1', 'agt_1')).toEqual([personal]);
        expect(await store.credentials.forConnection('conn_9', null)).toEqual([]);
        expect(await store.credentials.all()).toEqual([sharedSecret, shared, personal, otherAgent]);
      });

      it.each([
        ['shared', shared],
        ['personal', personal],
      ])('replace the %s field on put', async (_, first) => {
        const { store } = subject;
        await store.credentials.put(first);
        const second = { ...first, sealed: 'v1.rotated', keyId: 'ffee', updatedAt: T1 };
        await store.credentials.put(second);
        expect(await store.credentials.forConnection('conn_1', first.agentId)).toEqual([second]);
        expect(await store.credentials.all()).toEqual([second]);
      });

      it('are removed for the shared credential or one agent, counting the fields', async () => {
        const { store } = subject;
        await store.credentials.put(shared);
        await store.credentials.put(aCredential({ field: 'secret' }));
        await store.credentials.put(personal);
        await store.credentials.put(otherAgent);
        expect(await store.credentials.remove('conn_1', null)).toBe(2);
        expect(await store.credentials.remove('conn_1', 'agt_1')).toBe(1);
        expect(await store.credentials.remove('conn_1', 'agt_1')).toBe(0);
        expect(await store.credentials.all()).toEqual([otherAgent]);
      });

      it.each([
        ['an unknown connection', aCredential({ connectionId: 'conn_none' }), 'connection'],
        [
          'a connection of another workspace',
          aCredential({ connectionId: 'conn_9' }),
          'connection',
        ],
        ['an unknown agent', aCredential({ agentId: 'agt_none' }), 'agent'],
        ['an agent of another workspace', aCredential({ agentId: 'agt_9' }), 'agent'],
      ])('refuse %s with not_found', async (_, credential, field) => {
        const { store } = subject;
        expect(await reasonOf(store.credentials.put(credential))).toEqual({
          code: 'not_found',
          field,
        });
        expect(await store.credentials.all()).toEqual([]);
      });

      it('never repeat the sealed value in an error', async () => {
        const { store } = subject;
        const sealed = 'v1.canary_sealed_value_5f1e2d';
        const error = await failureOf(
          store.credentials.put(aCredential({ connectionId: 'conn_none', sealed })),
        );
        expect(error.message).not.toContain(sealed);
        expect(JSON.stringify(error.detail ?? {})).not.toContain(sealed);
      });
    });

    describe('grants', () => {
      beforeEach(async () => {
        await subject.store.connections.create(aConnection());
        await subject.store.connections.create(aConnection({ id: 'conn_2', name: 'github' }));
      });

      const listed = aGrant({
        id: 'grt_2',
        connectionId: 'conn_2',
        scope: 'actions',
        actions: ['repos_get', 'issues_create', 'ünïcode'],
        credentialMode: 'personal',
        createdAt: T1,
      });

      it('are listed per workspace and per agent, oldest first, actions as given', async () => {
        const { store } = subject;
        await store.grants.create(listed);
        await store.grants.create(aGrant());
        await store.grants.create(aGrant({ id: 'grt_3', agentId: 'agt_2', createdAt: T2 }));
        await store.grants.create(
          aGrant({ id: 'grt_9', workspaceId: 'ws_2', agentId: 'agt_9', connectionId: 'conn_9' }),
        );
        expect((await store.grants.list('ws_1')).map((g) => g.id)).toEqual([
          'grt_1',
          'grt_2',
          'grt_3',
        ]);
        expect(await store.grants.forAgent('agt_1')).toEqual([aGrant(), listed]);
        expect((await store.grants.all()).map((g) => g.id)).toEqual([
          'grt_1',
          'grt_9',
          'grt_2',
          'grt_3',
        ]);
      });

      it('are removed within their workspace', async () => {
        const { store } = subject;
        await store.grants.create(aGrant());
        expect(await store.grants.remove('ws_2', 'grt_1')).toBe(false);
        expect(await store.grants.remove('ws_1', 'grt_1')).toBe(true);
        expect(await store.grants.remove('ws_1', 'grt_1')).toBe(false);
        expect(await store.grants.all()).toEqual([]);
      });

      it.each([
        [
          'a second grant for the agent and connection',
          aGrant({ id: 'grt_2' }),
          'conflict',
          'agent',
        ],
        ['a taken id', aGrant({ connectionId: 'conn_2' }), 'conflict', 'id'],
        ['an unknown agent', aGrant({ id: 'grt_2', agentId: 'agt_none' }), 'not_found', 'agent'],
        [
          'an agent of another workspace',
          aGrant({ id: 'grt_2', agentId: 'agt_9' }),
          'not_found',
          'agent',
        ],
        [
          'an unknown connection',
          aGrant({ id: 'grt_2', connectionId: 'conn_none' }),
          'not_found',
          'connection',
        ],
        [
          'a connection of another workspace',
          aGrant({ id: 'grt_2', connectionId: 'conn_9' }),
          'not_found',
          'connection',
        ],
      ])('refuse %s', async (_, second, code, field) => {
        const { store } = subject;
        await store.grants.create(aGrant());
        expect(await reasonOf(store.grants.create(second))).toEqual({ code, field });
        expect(await store.grants.all()).toEqual([aGrant()]);
      });
    });

    describe('action policies', () => {
      beforeEach(async () => {
        await subject.store.connections.create(aConnection());
        await subject.store.connections.create(aConnection({ id: 'conn_2', name: 'github' }));
      });

      it('are put, found, listed by action and replaced', async () => {
        const { store } = subject;
        const write = aPolicy({ action: 'instances_create', classification: 'write' });
        await store.policies.put(write);
        await store.policies.put(aPolicy());
        await store.policies.put(aPolicy({ connectionId: 'conn_2', action: 'a_first' }));
        expect(await store.policies.get('conn_1', 'instances_list')).toEqual(aPolicy());
        expect(await store.policies.get('conn_1', 'none')).toBeUndefined();
        expect(await store.policies.forConnection('conn_1')).toEqual([write, aPolicy()]);

        const replaced = aPolicy({
          state: 'quarantined',
          currentHash: 'sha256:cccc',
          updatedAt: T1,
        });
        await store.policies.put(replaced);
        expect(await store.policies.get('conn_1', 'instances_list')).toEqual(replaced);
        expect((await store.policies.all()).map((p) => `${p.connectionId}/${p.action}`)).toEqual([
          'conn_1/instances_create',
          'conn_1/instances_list',
          'conn_2/a_first',
        ]);
      });

      it('are put many at once, past one statement and with the last of a repeated action winning', async () => {
        const { store } = subject;
        const many = Array.from({ length: 1201 }, (_, index) =>
          aPolicy({ action: `action_${String(index).padStart(4, '0')}` }),
        );
        const last = aPolicy({ action: 'action_0000', state: 'disabled', reviewedHash: null });
        await store.policies.putMany([...many, last]);
        const stored = await store.policies.forConnection('conn_1');
        expect(stored).toHaveLength(1201);
        expect(stored[0]).toEqual(last);
        await store.policies.putMany([]);
        expect(await store.policies.all()).toHaveLength(1201);
      });

      it('change state, and the reviewed hash only when given', async () => {
        const { store } = subject;
        await store.policies.put(aPolicy());
        const at = { updatedAt: T1 };
        expect(
          await store.policies.setState('conn_1', 'instances_list', { state: 'disabled', ...at }),
        ).toBe(true);
        expect(await store.policies.get('conn_1', 'instances_list')).toEqual(
          aPolicy({ state: 'disabled', updatedAt: T1 }),
        );
        await store.policies.setState('conn_1', 'instances_list', {
          state: 'quarantined',
          reviewedHash: null,
          updatedAt: T2,
        });
        expect(await store.policies.get('conn_1', 'instances_list')).toEqual(
          aPolicy({ state: 'quarantined', reviewedHash: null, updatedAt: T2 }),
        );
        await store.policies.setState('conn_1', 'instances_list', {
          state: 'enabled',
          reviewedHash: 'sha256:dddd',
          updatedAt: T2,
        });
        expect((await store.policies.get('conn_1', 'instances_list'))?.reviewedHash).toBe(
          'sha256:dddd',
        );
        expect(await store.policies.setState('conn_1', 'none', { state: 'enabled', ...at })).toBe(
          false,
        );
      });

      it.each([
        ['an unknown connection', aPolicy({ connectionId: 'conn_none' })],
        ['a connection of another workspace', aPolicy({ connectionId: 'conn_9' })],
      ])('refuse %s with not_found, writing none of the batch', async (_, bad) => {
        const { store } = subject;
        const good = aPolicy({ action: 'other' });
        expect(await reasonOf(store.policies.putMany([good, bad]))).toEqual({
          code: 'not_found',
          field: 'connection',
        });
        expect(await reasonOf(store.policies.put(bad))).toEqual({
          code: 'not_found',
          field: 'connection',
        });
        expect(await store.policies.all()).toEqual([]);
      });
    });
  });
}
