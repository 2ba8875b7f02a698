/** Calls held for approval (migration 0022): not governance, no revision bump. */
import type { Selectable } from 'kysely';
import type { Classification } from '../../../../generated/catalog-format.ts';
import type { Approval, ApprovalState } from '../../../core/model/approvals.ts';
import type { ApprovalRows } from '../../../core/ports/store.ts';
import type { ApprovalTable } from '../tables/schema.ts';
import type { StoreContext } from './store-context.ts';

const LIVE: readonly ApprovalState[] = ['pending', 'approved'];
const SETTLED: readonly ApprovalState[] = ['denied', 'expired', 'executed'];

export function approvalRows(context: StoreContext): ApprovalRows {
  const { db } = context;
  return {
    async create(a) {
      await db
        .insertInto('approvals')
        .values({
          id: a.id,
          workspace_id: a.workspaceId,
          agent_id: a.agentId,
          member_id: a.memberId,
          connection_id: a.connectionId,
          action: a.action,
          classification: a.classification,
          arguments_hash: a.argumentsHash,
          arguments: a.arguments,
          shown_arguments: a.shownArguments,
          state: a.state,
          task_ref: a.taskRef,
          decided_by: a.decidedBy,
          decided_at: a.decidedAt,
          reason: a.reason,
          created_at: a.createdAt,
          expires_at: a.expiresAt,
          executed_at: a.executedAt,
          call_context: a.callContext,
          delivered_at: a.deliveredAt,
        })
        .execute();
    },

    async byId(id) {
      const row = await db
        .selectFrom('approvals')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toApproval(row);
    },

    async byTaskRef(taskRef) {
      const row = await db
        .selectFrom('approvals')
        .selectAll()
        .where('task_ref', '=', taskRef)
        .executeTakeFirst();
      return row && toApproval(row);
    },

    async list(workspaceId, states, limit) {
      let query = db.selectFrom('approvals').selectAll().where('workspace_id', '=', workspaceId);
      if (states !== undefined && states.length > 0)
        query = query.where('state', 'in', [...states]);
      const rows = await query.orderBy('created_at', 'desc').orderBy('id').limit(limit).execute();
      return rows.map(toApproval);
    },

    async countPending(workspaceId, now) {
      const row = await db
        .selectFrom('approvals')
        .select((eb) => eb.fn.countAll().as('count'))
        .where('workspace_id', '=', workspaceId)
        .where('state', '=', 'pending')
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(row?.count ?? 0);
    },

    async latestFor(key, states, now) {
      if (states.length === 0) return undefined;
      let query = db
        .selectFrom('approvals')
        .selectAll()
        .where('agent_id', '=', key.agentId)
        .where('connection_id', '=', key.connectionId)
        .where('action', '=', key.action)
        .where('arguments_hash', '=', key.argumentsHash)
        .where('state', 'in', [...states]);
      if (now !== undefined) query = query.where('expires_at', '>', now);
      const row = await query.orderBy('created_at', 'desc').executeTakeFirst();
      return row && toApproval(row);
    },

    async change(id, from, change, now) {
      if (from.length === 0) return false;
      const set: Partial<ApprovalTable> = { state: change.state };
      if (change.decidedBy !== undefined) set.decided_by = change.decidedBy;
      if (change.decidedAt !== undefined) set.decided_at = change.decidedAt;
      if (change.reason !== undefined) set.reason = change.reason;
      if (change.expiresAt !== undefined) set.expires_at = change.expiresAt;
      if (change.executedAt !== undefined) set.executed_at = change.executedAt;
      let query = db
        .updateTable('approvals')
        .set(set)
        .where('id', '=', id)
        .where('state', 'in', [...from]);
      if (now !== undefined) query = query.where('expires_at', '>', now);
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async deliver(id, at) {
      const result = await db
        .updateTable('approvals')
        .set({ delivered_at: at })
        .where('id', '=', id)
        .where((eb) =>
          eb.or([
            eb('state', 'in', ['executed', 'denied', 'expired']),
            eb.and([eb('state', 'in', [...LIVE]), eb('expires_at', '<=', at)]),
          ]),
        )
        .where('delivered_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async overdue(now, limit) {
      const rows = await db
        .selectFrom('approvals')
        .selectAll()
        .where('state', 'in', [...LIVE])
        .where('expires_at', '<=', now)
        .orderBy('expires_at')
        .limit(limit)
        .execute();
      return rows.map(toApproval);
    },

    async prune(before) {
      const result = await db
        .deleteFrom('approvals')
        .where('state', 'in', [...SETTLED])
        .where('expires_at', '<', before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

function toApproval(row: Selectable<ApprovalTable>): Approval {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    memberId: row.member_id,
    connectionId: row.connection_id,
    action: row.action,
    classification: row.classification as Classification,
    argumentsHash: row.arguments_hash,
    arguments: row.arguments,
    shownArguments: row.shown_arguments,
    state: row.state as ApprovalState,
    taskRef: row.task_ref,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at,
    reason: row.reason,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    executedAt: row.executed_at,
    callContext: row.call_context,
    deliveredAt: row.delivered_at,
  };
}
