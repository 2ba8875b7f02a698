import type { Selectable } from 'kysely';
import type {
  Connection,
  ConnectionHealth,
  ConnectionStatus,
} from '../../../core/model/governance.ts';
import type { ConnectionRows } from '../../../core/ports/store.ts';
import type { ConnectionTable } from '../tables/schema.ts';
import { sortedBy } from './order.ts';
import type { StoreContext } from './store-context.ts';

export function connectionRows(context: StoreContext): ConnectionRows {
  const { db } = context;
  return {
    async create(connection) {
      await context.mutate(
        (trx) =>
          trx
            .insertInto('connections')
            .values({
              id: connection.id,
              workspace_id: connection.workspaceId,
              name: connection.name,
              provider: connection.provider,
              settings: JSON.stringify(connection.settings),
              status: connection.status,
              health: connection.health,
              failure_streak: connection.failureStreak,
              created_at: connection.createdAt,
              updated_at: connection.updatedAt,
            })
            .execute(),
        [{ field: 'workspace', id: connection.workspaceId }],
      );
    },

    async list(workspaceId) {
      const rows = await db
        .selectFrom('connections')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .execute();
      return sortedBy(rows.map(toConnection), (row) => row.name);
    },

    async all() {
      const rows = await db.selectFrom('connections').selectAll().execute();
      return sortedBy(
        rows.map(toConnection),
        (row) => row.workspaceId,
        (row) => row.name,
      );
    },

    async byId(workspaceId, id) {
      const row = await db
        .selectFrom('connections')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toConnection(row);
    },

    async byName(workspaceId, name) {
      const row = await db
        .selectFrom('connections')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('name', '=', name)
        .executeTakeFirst();
      return row && toConnection(row);
    },

    async update(workspaceId, id, change) {
      const result = await context.mutate((trx) =>
        trx
          .updateTable('connections')
          .set({
            ...(change.settings === undefined ? {} : { settings: JSON.stringify(change.settings) }),
            ...(change.status === undefined ? {} : { status: change.status }),
            updated_at: change.updatedAt,
          })
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .executeTakeFirst(),
      );
      return result.numUpdatedRows > 0n;
    },

    async recordHealth(id, health, failureStreak, at) {
      await db
        .updateTable('connections')
        .set({ health, failure_streak: failureStreak, health_at: at })
        .where('id', '=', id)
        .execute();
    },

    async remove(workspaceId, id) {
      // Credentials, grants and policies go with it (on delete cascade).
      const result = await context.mutate((trx) =>
        trx
          .deleteFrom('connections')
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .executeTakeFirst(),
      );
      return result.numDeletedRows > 0n;
    },
  };
}

function toConnection(row: Selectable<ConnectionTable>): Connection {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    provider: row.provider,
    settings: JSON.parse(row.settings) as Record<string, string>,
    status: row.status as ConnectionStatus,
    health: row.health as ConnectionHealth,
    failureStreak: row.failure_streak,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
