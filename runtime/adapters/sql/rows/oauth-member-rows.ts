import type { Selectable } from 'kysely';
import { MEMBER_ROLES, type Member, type MemberRole } from '../../../core/model/oauth.ts';
import type { MemberRows } from '../../../core/ports/store.ts';
import type { OAuthMemberTable } from '../tables/schema.ts';
import { sortedBy } from './order.ts';
import type { StoreContext } from './store-context.ts';

export function memberRows(context: StoreContext): MemberRows {
  const { db } = context;
  return {
    async create(member, passwordHash) {
      await context.mutate(
        (trx) =>
          trx
            .insertInto('oauth_members')
            .values({
              id: member.id,
              workspace_id: member.workspaceId,
              name: member.name,
              password_hash: passwordHash,
              role: member.role,
              created_at: member.createdAt,
              updated_at: member.updatedAt,
            })
            .execute(),
        [{ field: 'workspace', id: member.workspaceId }],
      );
    },

    async list(workspaceId) {
      const rows = await db
        .selectFrom('oauth_members')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .execute();
      return sortedBy(rows.map(toMember), (row) => row.name);
    },

    async byName(name) {
      const row = await db
        .selectFrom('oauth_members')
        .selectAll()
        .where('name', '=', name)
        .executeTakeFirst();
      return row && { ...toMember(row), passwordHash: row.password_hash };
    },

    async byId(id) {
      const row = await db
        .selectFrom('oauth_members')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toMember(row);
    },

    async setPassword(id, passwordHash, at) {
      const result = await context.mutate((trx) =>
        trx
          .updateTable('oauth_members')
          .set({ password_hash: passwordHash, updated_at: at })
          .where('id', '=', id)
          .executeTakeFirst(),
      );
      return result.numUpdatedRows > 0n;
    },

    async setRole(id, role, at) {
      const result = await context.mutate((trx) =>
        trx
          .updateTable('oauth_members')
          .set({ role, updated_at: at })
          .where('id', '=', id)
          .executeTakeFirst(),
      );
      return result.numUpdatedRows > 0n;
    },

    async touch(id, at) {
      const result = await context.mutate((trx) =>
        trx
          .updateTable('oauth_members')
          .set({ updated_at: at })
          .where('id', '=', id)
          .executeTakeFirst(),
      );
      return result.numUpdatedRows > 0n;
    },

    async remove(id) {
      const result = await context.mutate((trx) =>
        trx.deleteFrom('oauth_members').where('id', '=', id).executeTakeFirst(),
      );
      return result.numDeletedRows > 0n;
    },
  };
}

function toMember(row: Selectable<OAuthMemberTable>): Member {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    role: roleOf(row.role),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A role this version does not know is no role: the least a member may do. */
function roleOf(text: string): MemberRole {
  return (MEMBER_ROLES as readonly string[]).includes(text) ? (text as MemberRole) : 'member';
}
