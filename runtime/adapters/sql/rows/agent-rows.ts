import type { Selectable } from 'kysely';
import type { Agent, AgentStatus, ToolsMode } from '../../../core/model/governance.ts';
import type { AgentRows } from '../../../core/ports/store.ts';
import type { AgentTable } from '../tables/schema.ts';
import { sortedBy } from './order.ts';
import type { StoreContext } from './store-context.ts';

export function agentRows(context: StoreContext): AgentRows {
  const { db } = context;
  return {
    async create(agent, keyHash) {
      await context.mutate(
        (trx) =>
          trx
            .insertInto('agents')
            .values({
              id: agent.id,
              workspace_id: agent.workspaceId,
              name: agent.name,
              key_prefix: agent.keyPrefix,
              key_hash: keyHash,
              status: agent.status,
              created_at: agent.createdAt,
              revoked_at: agent.revokedAt,
              member_id: agent.memberId,
              tools_mode: agent.toolsMode,
            })
            .execute(),
        [{ field: 'workspace', id: agent.workspaceId }],
      );
    },

    async list(workspaceId) {
      const rows = await db
        .selectFrom('agents')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .execute();
      return sortedBy(rows.map(toAgent), (row) => row.name);
    },

    async byId(workspaceId, id) {
      const row = await db
        .selectFrom('agents')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toAgent(row);
    },

    async byKeyHash(keyHash) {
      const row = await db
        .selectFrom('agents')
        .selectAll()
        .where('key_hash', '=', keyHash)
        .executeTakeFirst();
      return row && toAgent(row);
    },

    async all() {
      const rows = await db.selectFrom('agents').selectAll().execute();
      return sortedBy(
        rows.map((row) => ({ ...toAgent(row), keyHash: row.key_hash })),
        (row) => row.workspaceId,
        (row) => row.name,
      );
    },

    async revoke(workspaceId, id, at) {
      // Revoking again keeps the first revocation time.
      const result = await context.mutate((trx) =>
        trx
          .updateTable('agents')
          .set((eb) => ({
            status: 'revoked',
            revoked_at: eb.fn.coalesce('revoked_at', eb.val(at)),
          }))
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .executeTakeFirst(),
      );
      return result.numUpdatedRows > 0n;
    },

    async setToolsMode(workspaceId, id, mode) {
      const result = await context.mutate((trx) =>
        trx
          .updateTable('agents')
          .set({ tools_mode: mode })
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .executeTakeFirst(),
      );
      return result.numUpdatedRows > 0n;
    },

    async replaceKey(workspaceId, id, keyPrefix, keyHash) {
      const result = await context.mutate((trx) =>
        trx
          .updateTable('agents')
          .set({ key_prefix: keyPrefix, key_hash: keyHash })
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .where('status', '=', 'active')
          .executeTakeFirst(),
      );
      return result.numUpdatedRows > 0n;
    },

    async remove(workspaceId, id) {
      // Grants, personal credentials and consents go with it (on delete cascade);
      // its personal upstream sign-ins name it without a foreign key.
      const result = await context.mutate(async (trx) => {
        const deleted = await trx
          .deleteFrom('agents')
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (deleted.numDeletedRows > 0n)
          await trx.deleteFrom('upstream_oauth_tokens').where('agent_id', '=', id).execute();
        return deleted;
      });
      return result.numDeletedRows > 0n;
    },
  };
}

function toAgent(row: Selectable<AgentTable>): Agent {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    keyPrefix: row.key_prefix,
    status: row.status as AgentStatus,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    memberId: row.member_id,
    toolsMode: row.tools_mode as ToolsMode | null,
  };
}
