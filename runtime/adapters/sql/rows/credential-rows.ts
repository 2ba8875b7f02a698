/**
 * Sealed credential fields. The shared credential has `agent_id` NULL; the
 * unique index is on `(connection_id, coalesce(agent_id, ''), field)`, and
 * `put` names that same expression as its conflict target.
 */
import { type ExpressionBuilder, type Selectable, sql } from 'kysely';
import type { SealedCredential } from '../../../core/model/governance.ts';
import type { CredentialRows } from '../../../core/ports/store.ts';
import type { Reference } from '../tables/constraint-errors.ts';
import type { CredentialTable, Database } from '../tables/schema.ts';
import { sortedBy } from './order.ts';
import type { StoreContext } from './store-context.ts';

export function credentialRows(context: StoreContext): CredentialRows {
  const { db } = context;
  return {
    async put(credential) {
      const references: Reference[] = [
        { field: 'connection', workspaceId: credential.workspaceId, id: credential.connectionId },
      ];
      if (credential.agentId !== null) {
        references.push({
          field: 'agent',
          workspaceId: credential.workspaceId,
          id: credential.agentId,
        });
      }
      await context.mutate(
        (trx) =>
          trx
            .insertInto('credentials')
            .values({
              workspace_id: credential.workspaceId,
              connection_id: credential.connectionId,
              agent_id: credential.agentId,
              field: credential.field,
              sealed: credential.sealed,
              key_id: credential.keyId,
              updated_at: credential.updatedAt,
            })
            .onConflict((conflict) =>
              conflict.expression(sql`connection_id, coalesce(agent_id, ''), field`).doUpdateSet({
                sealed: (eb) => eb.ref('excluded.sealed'),
                key_id: (eb) => eb.ref('excluded.key_id'),
                updated_at: (eb) => eb.ref('excluded.updated_at'),
              }),
            )
            .execute(),
        references,
      );
    },

    async forConnection(connectionId, agentId) {
      const rows = await db
        .selectFrom('credentials')
        .selectAll()
        .where('connection_id', '=', connectionId)
        .where((eb) => sameAgent(eb, agentId))
        .execute();
      return sortedBy(rows.map(toCredential), (row) => row.field);
    },

    async forWorkspace(workspaceId) {
      const rows = await db
        .selectFrom('credentials')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .execute();
      return sortedBy(
        rows.map(toCredential),
        (row) => row.connectionId,
        (row) => row.agentId ?? '',
        (row) => row.field,
      );
    },

    async all() {
      const rows = await db.selectFrom('credentials').selectAll().execute();
      return sortedBy(
        rows.map(toCredential),
        (row) => row.connectionId,
        (row) => row.agentId ?? '',
        (row) => row.field,
      );
    },

    async remove(connectionId, agentId) {
      const result = await context.mutate((trx) =>
        trx
          .deleteFrom('credentials')
          .where('connection_id', '=', connectionId)
          .where((eb) => sameAgent(eb, agentId))
          .executeTakeFirst(),
      );
      return Number(result.numDeletedRows);
    },
  };
}

function sameAgent(eb: ExpressionBuilder<Database, 'credentials'>, agentId: string | null) {
  return agentId === null ? eb('agent_id', 'is', null) : eb('agent_id', '=', agentId);
}

function toCredential(row: Selectable<CredentialTable>): SealedCredential {
  return {
    workspaceId: row.workspace_id,
    connectionId: row.connection_id,
    agentId: row.agent_id,
    field: row.field,
    sealed: row.sealed,
    keyId: row.key_id,
    updatedAt: row.updated_at,
  };
}
