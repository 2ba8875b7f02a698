/** Tasks an in-process producer works on (migration 0021): not governance, no revision bump. */
import type { Selectable } from 'kysely';
import type { TaskRecord, TaskRecordStatus } from '../../../core/model/tasks.ts';
import type { TaskRows } from '../../../core/ports/store.ts';
import type { TaskTable } from '../tables/schema.ts';
import type { StoreContext } from './store-context.ts';

export function taskRows(context: StoreContext): TaskRows {
  const { db } = context;
  return {
    async create(task) {
      // One statement each: atomic alone, in the store's open transaction when it is bound to one.
      await db
        .insertInto('tasks')
        .values({
          ref: task.ref,
          purpose: task.purpose,
          workspace_id: task.workspaceId,
          agent_id: task.agentId,
          connection_id: task.connectionId,
          action: task.action,
          status: task.status,
          status_message: task.statusMessage,
          result: task.result,
          error: task.error,
          input_requests: task.inputRequests,
          poll_interval_ms: task.pollIntervalMs,
          created_at: task.createdAt,
          last_updated_at: task.lastUpdatedAt,
          expires_at: task.expiresAt,
          follows: task.follows,
        })
        .execute();
    },

    async byRef(ref, now) {
      const row = await db
        .selectFrom('tasks')
        .selectAll()
        .where('ref', '=', ref)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return row && toTask(row);
    },

    async change(ref, from, change, now) {
      if (from.length === 0) return false;
      const set: Partial<TaskTable> = { last_updated_at: change.lastUpdatedAt };
      if (change.status !== undefined) set.status = change.status;
      if (change.statusMessage !== undefined) set.status_message = change.statusMessage;
      if (change.result !== undefined) set.result = change.result;
      if (change.error !== undefined) set.error = change.error;
      if (change.inputRequests !== undefined) set.input_requests = change.inputRequests;
      if (change.follows !== undefined) set.follows = change.follows;
      const result = await db
        .updateTable('tasks')
        .set(set)
        .where('ref', '=', ref)
        .where('status', 'in', [...from])
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async prune(before) {
      const result = await db
        .deleteFrom('tasks')
        .where('expires_at', '<', before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

function toTask(row: Selectable<TaskTable>): TaskRecord {
  return {
    ref: row.ref,
    purpose: row.purpose,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    connectionId: row.connection_id,
    action: row.action,
    status: row.status as TaskRecordStatus,
    statusMessage: row.status_message,
    result: row.result,
    error: row.error,
    inputRequests: row.input_requests,
    pollIntervalMs: row.poll_interval_ms === null ? null : Number(row.poll_interval_ms),
    createdAt: row.created_at,
    lastUpdatedAt: row.last_updated_at,
    expiresAt: row.expires_at,
    follows: row.follows,
  };
}
