/** The revision moves with every governance mutation, and only then. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../../../runtime/core/ports/store.ts';
import {
  aConnection,
  aCredential,
  aGrant,
  anAgent,
  anEvent,
  aPolicy,
  aWorkspace,
  failureOf,
  T1,
} from '../../../../support/store-fixtures.ts';
import type { StoreSubject } from '../store-contract.ts';

type Call = (store: Store) => Promise<unknown>;

const MUTATIONS: Array<[string, Call]> = [
  ['workspaces.create', (s) => s.workspaces.create(aWorkspace({ id: 'ws_2', name: 'second' }))],
  ['agents.create', (s) => s.agents.create(anAgent({ id: 'agt_3', name: 'other' }), 'hash_3')],
  ['agents.revoke', (s) => s.agents.revoke('ws_1', 'agt_1', T1)],
  ['agents.replaceKey', (s) => s.agents.replaceKey('ws_1', 'agt_1', 'pck_new', 'hash_new')],
  ['agents.remove', (s) => s.agents.remove('ws_1', 'agt_1')],
  ['connections.create', (s) => s.connections.create(aConnection({ id: 'conn_2', name: 'gh' }))],
  [
    'connections.update',
    (s) => s.connections.update('ws_1', 'conn_1', { status: 'active', updatedAt: T1 }),
  ],
  ['connections.remove', (s) => s.connections.remove('ws_1', 'conn_1')],
  ['credentials.put', (s) => s.credentials.put(aCredential({ sealed: 'v1.rotated' }))],
  ['credentials.remove', (s) => s.credentials.remove('conn_1', null)],
  ['grants.create', (s) => s.grants.create(aGrant({ id: 'grt_2', agentId: 'agt_2' }))],
  ['grants.remove', (s) => s.grants.remove('ws_1', 'grt_1')],
  ['policies.put', (s) => s.policies.put(aPolicy({ action: 'other' }))],
  ['policies.putMany', (s) => s.policies.putMany([aPolicy({ state: 'disabled' })])],
  [
    'policies.setState',
    (s) => s.policies.setState('conn_1', 'instances_list', { state: 'disabled', updatedAt: T1 }),
  ],
  ['adminTokens.create', (s) => s.adminTokens.create('adm_1', 'hash_adm', T1)],
  ['adminTokens.remove', (s) => s.adminTokens.remove('adm_1')],
  ['settings.put', (s) => s.settings.put('default_workspace', 'ws_1')],
];

const NOT_GOVERNANCE: Array<[string, Call]> = [
  ['audit.append', (s) => s.audit.append(anEvent())],
  ['connections.recordHealth', (s) => s.connections.recordHealth('conn_1', 'error', 5, T1)],
  ['audit.query', (s) => s.audit.query({})],
  ['workspaces.list', (s) => s.workspaces.list()],
  ['workspaces.byId', (s) => s.workspaces.byId('ws_1')],
  ['workspaces.byName', (s) => s.workspaces.byName('default')],
  ['agents.list', (s) => s.agents.list('ws_1')],
  ['agents.byId', (s) => s.agents.byId('ws_1', 'agt_1')],
  ['agents.byKeyHash', (s) => s.agents.byKeyHash('hash_1')],
  ['agents.all', (s) => s.agents.all()],
  ['connections.list', (s) => s.connections.list('ws_1')],
  ['connections.all', (s) => s.connections.all()],
  ['connections.byId', (s) => s.connections.byId('ws_1', 'conn_1')],
  ['connections.byName', (s) => s.connections.byName('ws_1', 'unikraft')],
  ['credentials.forConnection', (s) => s.credentials.forConnection('conn_1', null)],
  ['credentials.all', (s) => s.credentials.all()],
  ['grants.list', (s) => s.grants.list('ws_1')],
  ['grants.all', (s) => s.grants.all()],
  ['grants.forAgent', (s) => s.grants.forAgent('agt_1')],
  ['policies.forConnection', (s) => s.policies.forConnection('conn_1')],
  ['policies.all', (s) => s.policies.all()],
  ['policies.get', (s) => s.policies.get('conn_1', 'instances_list')],
  ['adminTokens.byHash', (s) => s.adminTokens.byHash('hash_adm')],
  ['adminTokens.count', (s) => s.adminTokens.count()],
  ['adminTokens.list', (s) => s.adminTokens.list()],
  ['settings.get', (s) => s.settings.get('default_workspace')],
];

const REFUSED: Array<[string, Call]> = [
  ['a taken workspace name', (s) => s.workspaces.create(aWorkspace({ id: 'ws_2' }))],
  [
    'a grant for an unknown agent',
    (s) => s.grants.create(aGrant({ id: 'grt_2', agentId: 'agt_none' })),
  ],
  [
    'a policy for an unknown connection',
    (s) => s.policies.put(aPolicy({ connectionId: 'conn_none' })),
  ],
];

export function describeRevisionContract(subject: StoreSubject): void {
  describe('the revision', () => {
    beforeEach(async () => {
      const { store } = subject;
      await store.workspaces.create(aWorkspace());
      await store.agents.create(anAgent(), 'hash_1');
      await store.agents.create(anAgent({ id: 'agt_2', name: 'reviewer' }), 'hash_r');
      await store.connections.create(aConnection());
      await store.credentials.put(aCredential());
      await store.grants.create(aGrant());
      await store.policies.put(aPolicy());
    });

    it('counts up from where the setup left it', async () => {
      expect(await subject.store.revision()).toBeGreaterThan(0);
    });

    it.each(MUTATIONS)('increases on %s', async (_, mutate) => {
      const before = await subject.store.revision();
      await mutate(subject.store);
      expect(await subject.store.revision()).toBeGreaterThan(before);
    });

    it.each(NOT_GOVERNANCE)('stays on %s', async (_, call) => {
      const before = await subject.store.revision();
      await call(subject.store);
      expect(await subject.store.revision()).toBe(before);
    });

    it.each(REFUSED)('stays when refusing %s', async (_, call) => {
      const before = await subject.store.revision();
      await failureOf(call(subject.store));
      expect(await subject.store.revision()).toBe(before);
    });

    it('is seen by another store on the same database', async () => {
      const other = await subject.open();
      const before = await other.revision();
      await subject.store.settings.put('k', 'v');
      expect(await other.revision()).toBeGreaterThan(before);
    });
  });
}
