/** Rate-limit overrides (migration 0014): one per agent or connection, a governance change each. */
import type { Selectable } from 'kysely';
import type { RateLimitOverride } from '../../../core/model/rate-limits.ts';
import type { RateLimitRows } from '../../../core/ports/store.ts';
import type { RateLimitTable } from '../tables/schema.ts';
import { sortedBy } from './order.ts';
import type { StoreContext } from './store-context.ts';

export function rateLimitRows(context: StoreContext): RateLimitRows {
  const { db } = context;
  return {
    async set(limit) {
      const column = limit.subject === 'agent' ? 'agent_id' : 'connection_id';
      await context.mutate(
        (trx) =>
          trx
            .insertInto('rate_limits')
            .values({
              id: limit.id,
              workspace_id: limit.workspaceId,
              agent_id: limit.subject === 'agent' ? limit.subjectId : null,
              connection_id: limit.subject === 'connection' ? limit.subjectId : null,
              per_minute: limit.perMinute,
              burst: limit.burst,
              updated_at: limit.updatedAt,
            })
            .onConflict((conflict) =>
              conflict.column(column).doUpdateSet({
                per_minute: limit.perMinute,
                burst: limit.burst,
                updated_at: limit.updatedAt,
              }),
            )
            .execute(),
        [{ field: limit.subject, workspaceId: limit.workspaceId, id: limit.subjectId }],
      );
    },

    async list(workspaceId) {
      const rows = await db
        .selectFrom('rate_limits')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .execute();
      return inOrder(rows.map(toOverride));
    },

    async all() {
      return inOrder((await db.selectFrom('rate_limits').selectAll().execute()).map(toOverride));
    },

    async clear(workspaceId, subject, subjectId) {
      const result = await context.mutate((trx) =>
        trx
          .deleteFrom('rate_limits')
          .where('workspace_id', '=', workspaceId)
          .where(subject === 'agent' ? 'agent_id' : 'connection_id', '=', subjectId)
          .executeTakeFirst(),
      );
      return result.numDeletedRows > 0n;
    },
  };
}

function inOrder(limits: RateLimitOverride[]): RateLimitOverride[] {
  return sortedBy(
    limits,
    (limit) => limit.subject,
    (limit) => limit.subjectId,
  );
}

function toOverride(row: Selectable<RateLimitTable>): RateLimitOverride {
  const agent = row.agent_id !== null;
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    subject: agent ? 'agent' : 'connection',
    subjectId: (agent ? row.agent_id : row.connection_id) as string,
    perMinute: Number(row.per_minute),
    burst: Number(row.burst),
    updatedAt: row.updated_at,
  };
}
