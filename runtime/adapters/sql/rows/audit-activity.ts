/**
 * The audit log's activity summed in the store: one grouped select over the
 * agents' calls in a time range (an index range on workspace, connection or
 * agent and time, migration 0016), grouped by time bucket (a prefix of the
 * ISO timestamp, the same text on both engines) and latency bin (a `case`
 * over the fixed bounds). A million events become at most a few thousand
 * rows, whatever the range.
 */
import { type Kysely, sql } from 'kysely';
import {
  type AuditActivityQuery,
  type AuditActivityRow,
  LATENCY_BOUNDS_MS,
} from '../../../core/model/audit-activity.ts';
import type { Database } from '../tables/schema.ts';

/** `case when latency_ms <= 1 then 0 … else 28 end`: the bounds are our own numbers, never input. */
const BIN = sql.raw(
  `case when latency_ms is null then -1 ${LATENCY_BOUNDS_MS.map(
    (bound, bin) => `when latency_ms <= ${bound} then ${bin}`,
  ).join(' ')} else ${LATENCY_BOUNDS_MS.length} end`,
);

export async function auditActivity(
  db: Kysely<Database>,
  query: AuditActivityQuery,
): Promise<AuditActivityRow[]> {
  const only = [
    query.connectionId === undefined ? sql`` : sql`and connection_id = ${query.connectionId}`,
    query.actorId === undefined ? sql`` : sql`and actor_id = ${query.actorId}`,
  ];
  const { rows } = await sql<{
    bucket: string;
    bin: number | string;
    calls: number | string;
    refusals: number | string;
    errors: number | string;
  }>`
    select substr(at, 1, ${sql.lit(query.bucketChars)}) as bucket, ${BIN} as bin,
      count(*) as calls,
      sum(case when decision = 'denied' then 1 else 0 end) as refusals,
      sum(case when outcome = 'error' then 1 else 0 end) as errors
    from audit_events
    where workspace_id = ${query.workspaceId} and actor_kind = 'agent'
      and at >= ${query.since} and at < ${query.until} ${only[0]} ${only[1]}
    group by 1, 2
    order by 1, 2`.execute(db);
  return rows.map((row) => ({
    bucket: row.bucket,
    bin: Number(row.bin),
    calls: Number(row.calls),
    refusals: Number(row.refusals),
    errors: Number(row.errors),
  }));
}
