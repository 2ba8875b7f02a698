/** Members' grants (migration 0012): one per member and connection, a governance change each. */
import type { Selectable } from 'kysely';
import type { GrantScope, MemberGrant } from '../../../core/model/governance.ts';
import type { MemberGrantRows } from '../../../core/ports/store.ts';
import type { MemberGrantTable } from '../tables/schema.ts';
import { sortedBy } from './order.ts';
import type { StoreContext } from './store-context.ts';

export function memberGrantRows(context: StoreContext): MemberGrantRows {
  const { db } = context;
  return {
    async create(grant) {
      await context.mutate(
        (trx) =>
          trx
            .insertInto('member_grants')
            .values({
              id: grant.id,
              workspace_id: grant.workspaceId,
              member_id: grant.memberId,
              connection_id: grant.connectionId,
              scope: grant.scope,
              actions: JSON.stringify(grant.actions),
              created_at: grant.createdAt,
            })
            .execute(),
        [
          { field: 'member', id: grant.memberId },
          { field: 'connection', workspaceId: grant.workspaceId, id: grant.connectionId },
        ],
      );
    },

    async list(workspaceId) {
      const rows = await db
        .selectFrom('member_grants')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .execute();
      return inCreationOrder(rows.map(toMemberGrant));
    },

    async all() {
      const rows = await db.selectFrom('member_grants').selectAll().execute();
      return inCreationOrder(rows.map(toMemberGrant));
    },

    async forMember(memberId) {
      const rows = await db
        .selectFrom('member_grants')
        .selectAll()
        .where('member_id', '=', memberId)
        .execute();
      return inCreationOrder(rows.map(toMemberGrant));
    },

    async remove(workspaceId, id) {
      const result = await context.mutate((trx) =>
        trx
          .deleteFrom('member_grants')
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .executeTakeFirst(),
      );
      return result.numDeletedRows > 0n;
    },
  };
}

function inCreationOrder(grants: MemberGrant[]): MemberGrant[] {
  return sortedBy(
    grants,
    (grant) => grant.createdAt,
    (grant) => grant.id,
  );
}

function toMemberGrant(row: Selectable<MemberGrantTable>): MemberGrant {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    memberId: row.member_id,
    connectionId: row.connection_id,
    scope: row.scope as GrantScope,
    actions: JSON.parse(row.actions) as string[],
    createdAt: row.created_at,
  };
}
