/**
 * Members' grants (migration 0012): one per member and connection, a
 * governance change each, gone with the member or the connection; and an
 * agent keeps the member it acts for.
 */
import { describe, expect, it } from 'vitest';
import type { MemberGrant } from '../../../../../runtime/core/model/governance.ts';
import {
  aConnection,
  anAgent,
  aWorkspace,
  failureOf,
  T0,
  T1,
} from '../../../../support/store-fixtures.ts';
import type { StoreSubject } from '../store-contract.ts';

const MEMBER = {
  id: 'mem_1',
  workspaceId: 'ws_1',
  name: 'alice',
  role: 'member' as const,
  createdAt: T0,
  updatedAt: T0,
};

function aMemberGrant(overrides: Partial<MemberGrant> = {}): MemberGrant {
  return {
    id: 'mgr_1',
    workspaceId: 'ws_1',
    memberId: 'mem_1',
    connectionId: 'conn_1',
    scope: 'reads',
    actions: [],
    createdAt: T0,
    ...overrides,
  };
}

export function describeMemberGrantContract(subject: StoreSubject): void {
  async function aMemberAndAConnection(): Promise<void> {
    const { store } = subject;
    await store.workspaces.create(aWorkspace());
    await store.connections.create(aConnection());
    await store.oauth.members.create(MEMBER, 'scrypt$hash');
  }

  describe("members' grants", () => {
    it('are created, listed by workspace and member, and removed, each moving the revision', async () => {
      const { store } = subject;
      await aMemberAndAConnection();
      const before = await store.revision();
      const grant = aMemberGrant({ scope: 'actions', actions: ['a', 'b'] });
      await store.memberGrants.create(grant);
      expect(await store.revision()).toBeGreaterThan(before);
      expect(await store.memberGrants.list('ws_1')).toEqual([grant]);
      expect(await store.memberGrants.all()).toEqual([grant]);
      expect(await store.memberGrants.forMember('mem_1')).toEqual([grant]);
      expect(await store.memberGrants.forMember('mem_none')).toEqual([]);
      const created = await store.revision();
      expect(await store.memberGrants.remove('ws_1', 'mgr_1')).toBe(true);
      expect(await store.revision()).toBeGreaterThan(created);
      expect(await store.memberGrants.remove('ws_1', 'mgr_1')).toBe(false);
    });

    it.each([
      [
        'a second grant on the same connection',
        { grant: { id: 'mgr_2' }, code: 'conflict', field: 'member' },
      ],
      [
        'a member that does not exist',
        { grant: { id: 'mgr_2', memberId: 'mem_none' }, code: 'not_found', field: 'member' },
      ],
      [
        'a connection that does not exist',
        {
          grant: { id: 'mgr_2', connectionId: 'conn_none' },
          code: 'not_found',
          field: 'connection',
        },
      ],
    ] as const)('refuse %s', async (_name, { grant, code, field }) => {
      const { store } = subject;
      await aMemberAndAConnection();
      await store.memberGrants.create(aMemberGrant());
      const error = await failureOf(store.memberGrants.create(aMemberGrant(grant)));
      expect(error.code).toBe(code);
      expect(error.field).toBe(field);
    });

    it('go with their member, and with their connection', async () => {
      const { store } = subject;
      await aMemberAndAConnection();
      await store.connections.create(aConnection({ id: 'conn_2', name: 'github' }));
      await store.oauth.members.create({ ...MEMBER, id: 'mem_2', name: 'bob' }, 'h');
      await store.memberGrants.create(aMemberGrant());
      await store.memberGrants.create(aMemberGrant({ id: 'mgr_2', connectionId: 'conn_2' }));
      await store.memberGrants.create(
        aMemberGrant({ id: 'mgr_3', memberId: 'mem_2', createdAt: T1 }),
      );
      await store.connections.remove('ws_1', 'conn_2');
      expect((await store.memberGrants.all()).map((g) => g.id)).toEqual(['mgr_1', 'mgr_3']);
      await store.oauth.members.remove('mem_1');
      expect((await store.memberGrants.all()).map((g) => g.id)).toEqual(['mgr_3']);
    });
  });

  describe('an agent acting for a member', () => {
    it('keeps the member it acts for; an operator’s agent has none', async () => {
      const { store } = subject;
      await aMemberAndAConnection();
      await store.agents.create(
        anAgent({ id: 'agt_m', name: 'alice-1234567', memberId: 'mem_1' }),
        'hash_m',
      );
      await store.agents.create(anAgent(), 'hash_agent');
      expect((await store.agents.byId('ws_1', 'agt_m'))?.memberId).toBe('mem_1');
      expect((await store.agents.all()).map((a) => [a.id, a.memberId]).sort()).toEqual([
        ['agt_1', null],
        ['agt_m', 'mem_1'],
      ]);
    });
  });
}
