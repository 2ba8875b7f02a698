import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Classification } from '../../../../generated/catalog-format.ts';
import type { ActionPolicy, PolicyState } from '../../../core/model/governance.ts';
import type { PolicyRows } from '../../../core/ports/store.ts';
import type { Reference } from '../tables/constraint-errors.ts';
import type { ActionPolicyTable, Database } from '../tables/schema.ts';
import { sortedBy } from './order.ts';
import type { StoreContext } from './store-context.ts';

/** Rows per insert statement: 8 parameters each stays far below both engines' limits. */
const BATCH = 500;

export function policyRows(context: StoreContext): PolicyRows {
  const { db } = context;
  const putMany = async (given: readonly ActionPolicy[]): Promise<void> => {
    // One row per (connection, action), the last one given: PostgreSQL refuses
    // to update a row twice in one statement, SQLite would keep the last.
    const policies = [...new Map(given.map((policy) => [policyKey(policy), policy])).values()];
    if (policies.length === 0) return;
    await context.mutate(async (trx) => {
      for (let start = 0; start < policies.length; start += BATCH) {
        await upsert(trx, policies.slice(start, start + BATCH));
      }
    }, connectionsOf(policies));
  };
  return {
    put: (policy) => putMany([policy]),
    putMany,

    async forConnection(connectionId) {
      const rows = await db
        .selectFrom('action_policies')
        .selectAll()
        .where('connection_id', '=', connectionId)
        .execute();
      return sortedBy(rows.map(toPolicy), (row) => row.action);
    },

    async all() {
      const rows = await db.selectFrom('action_policies').selectAll().execute();
      return sortedBy(
        rows.map(toPolicy),
        (row) => row.connectionId,
        (row) => row.action,
      );
    },

    async get(connectionId, action) {
      const row = await db
        .selectFrom('action_policies')
        .selectAll()
        .where('connection_id', '=', connectionId)
        .where('action', '=', action)
        .executeTakeFirst();
      return row && toPolicy(row);
    },

    async setState(connectionId, action, change) {
      const result = await context.mutate((trx) =>
        trx
          .updateTable('action_policies')
          .set({
            state: change.state,
            ...(change.reviewedHash === undefined ? {} : { reviewed_hash: change.reviewedHash }),
            updated_at: change.updatedAt,
          })
          .where('connection_id', '=', connectionId)
          .where('action', '=', action)
          .executeTakeFirst(),
      );
      return result.numUpdatedRows > 0n;
    },
  };
}

async function upsert(db: Kysely<Database>, policies: readonly ActionPolicy[]): Promise<void> {
  await db
    .insertInto('action_policies')
    .values(policies.map(toRow))
    .onConflict((conflict) =>
      conflict.columns(['connection_id', 'action']).doUpdateSet((eb) => ({
        workspace_id: eb.ref('excluded.workspace_id'),
        classification: eb.ref('excluded.classification'),
        state: eb.ref('excluded.state'),
        reviewed_hash: eb.ref('excluded.reviewed_hash'),
        current_hash: eb.ref('excluded.current_hash'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
}

/** Each connection the policies point at, once, in first-seen order. */
function connectionsOf(policies: readonly ActionPolicy[]): Reference[] {
  const seen = new Map<string, Reference>();
  for (const policy of policies) {
    const key = `${policy.workspaceId}\u0000${policy.connectionId}`;
    if (!seen.has(key)) {
      seen.set(key, {
        field: 'connection',
        workspaceId: policy.workspaceId,
        id: policy.connectionId,
      });
    }
  }
  return [...seen.values()];
}

function policyKey(policy: ActionPolicy): string {
  return `${policy.connectionId}\u0000${policy.action}`;
}

function toRow(policy: ActionPolicy): Insertable<ActionPolicyTable> {
  return {
    connection_id: policy.connectionId,
    workspace_id: policy.workspaceId,
    action: policy.action,
    classification: policy.classification,
    state: policy.state,
    reviewed_hash: policy.reviewedHash,
    current_hash: policy.currentHash,
    updated_at: policy.updatedAt,
  };
}

function toPolicy(row: Selectable<ActionPolicyTable>): ActionPolicy {
  return {
    connectionId: row.connection_id,
    workspaceId: row.workspace_id,
    action: row.action,
    classification: row.classification as Classification,
    state: row.state as PolicyState,
    reviewedHash: row.reviewed_hash,
    currentHash: row.current_hash,
    updatedAt: row.updated_at,
  };
}
