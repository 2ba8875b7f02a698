import type { Selectable } from 'kysely';
import type { ToolsMode, Workspace } from '../../../core/model/governance.ts';
import type { WorkspaceRows } from '../../../core/ports/store.ts';
import type { WorkspaceTable } from '../tables/schema.ts';
import { sortedBy } from './order.ts';
import type { StoreContext } from './store-context.ts';

export function workspaceRows(context: StoreContext): WorkspaceRows {
  const { db } = context;
  return {
    async create(workspace) {
      await context.mutate((trx) =>
        trx
          .insertInto('workspaces')
          .values({
            id: workspace.id,
            name: workspace.name,
            created_at: workspace.createdAt,
            tools_mode: workspace.toolsMode,
          })
          .execute(),
      );
    },

    async list() {
      const rows = await db.selectFrom('workspaces').selectAll().execute();
      return sortedBy(rows.map(toWorkspace), (row) => row.name);
    },

    async byId(id) {
      const row = await db
        .selectFrom('workspaces')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toWorkspace(row);
    },

    async setToolsMode(id, mode) {
      const result = await context.mutate((trx) =>
        trx
          .updateTable('workspaces')
          .set({ tools_mode: mode })
          .where('id', '=', id)
          .executeTakeFirst(),
      );
      return result.numUpdatedRows > 0n;
    },

    async byName(name) {
      const row = await db
        .selectFrom('workspaces')
        .selectAll()
        .where('name', '=', name)
        .executeTakeFirst();
      return row && toWorkspace(row);
    },
  };
}

function toWorkspace(row: Selectable<WorkspaceTable>): Workspace {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    toolsMode: row.tools_mode as ToolsMode,
  };
}
