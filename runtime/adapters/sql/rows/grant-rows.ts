import type { Selectable } from 'kysely';
import type { CredentialMode, Grant, GrantScope } from '../../../core/model/governance.ts';
import type { GrantRows } from '../../../core/ports/store.ts';
import type { GrantTable } from '../tables/schema.ts';
import { sortedBy } from './order.ts';
import type { StoreContext } from './store-context.ts';

export function grantRows(context: StoreContext): GrantRows {
  const { db } = context;
  return {
    async create(grant) {
      await context.mutate(
        (trx) =>
          trx
            .insertInto('grants')
            .values({
              id: grant.id,
              workspace_id: grant.workspaceId,
              agent_id: grant.agentId,
              connection_id: grant.connectionId,
              scope: grant.scope,
              actions: JSON.stringify(grant.actions),
              credential_mode: grant.credentialMode,
              created_at: grant.createdAt,
            })
            .execute(),
        [
          { field: 'agent', workspaceId: grant.workspaceId, id: grant.agentId },
          { field: 'connection', workspaceId: grant.workspaceId, id: grant.connectionId },
        ],
      );
    },

    async list(workspaceId) {
      const rows = await db
        .selectFrom('grants')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .execute();
      return inCreationOrder(rows.map(toGrant));
    },

    async all() {
      const rows = await db.selectFrom('grants').selectAll().execute();
      return inCreationOrder(rows.map(toGrant));
    },

    async forAgent(agentId) {
      const rows = await db
        .selectFrom('grants')
        .selectAll()
        .where('agent_id', '=', agentId)
        .execute();
      return inCreationOrder(rows.map(toGrant));
    },

    async remove(workspaceId, id) {
      const result = await context.mutate((trx) =>
        trx
          .deleteFrom('grants')
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .executeTakeFirst(),
      );
      return result.numDeletedRows > 0n;
    },
  };
}

function inCreationOrder(grants: Grant[]): Grant[] {
  return sortedBy(
    grants,
    (grant) => grant.createdAt,
    (grant) => grant.id,
  );
}

function toGrant(row: Selectable<GrantTable>): Grant {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    connectionId: row.connection_id,
    scope: row.scope as GrantScope,
    actions: JSON.parse(row.actions) as string[],
    credentialMode: row.credential_mode as CredentialMode,
    createdAt: row.created_at,
  };
}
