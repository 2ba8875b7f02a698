/**
 * The audit log's activity for the console's charts, summed in the store.
 * Read from the hour rollup (migration 0017) whenever it answers exactly:
 * one filter at most (the workspace, a connection or an agent), buckets of
 * an hour or more and bounds on the hour (the 7 and 30 day charts); a key
 * range of the rollup grouped by a prefix of its bucket. Anything else (the
 * 1 h to 24 h charts, a connection and an agent at once) sums the log
 * itself: one grouped select over the agents' calls in the range (an index
 * range of migration 0016), grouped by bucket (a prefix of the ISO
 * timestamp, the same text on both engines) and latency bin.
 */
import { type Kysely, sql } from 'kysely';
import type { AuditActivityQuery, AuditActivityRow } from '../../../core/model/audit-activity.ts';
import { LATENCY_BIN_SQL } from '../tables/latency-bin.ts';
import { type Database, ROLLUP_BUCKET_CHARS } from '../tables/schema.ts';

interface SummedRow {
  bucket: string;
  bin: number | string;
  calls: number | string;
  refusals: number | string;
  errors: number | string;
}

export async function auditActivity(
  db: Kysely<Database>,
  query: AuditActivityQuery,
): Promise<AuditActivityRow[]> {
  const rollup = rollupOf(query);
  const { rows } = await (rollup === undefined
    ? fromLog(query)
    : fromRollup(query, rollup)
  ).execute(db);
  return rows.map((row) => ({
    bucket: row.bucket,
    bin: Number(row.bin),
    calls: Number(row.calls),
    refusals: Number(row.refusals),
    errors: Number(row.errors),
  }));
}

interface Rollup {
  scope: 'workspace' | 'connection' | 'agent';
  subject: string;
}

/** The rollup rows that answer the query exactly, if any do. */
function rollupOf(query: AuditActivityQuery): Rollup | undefined {
  if (query.connectionId !== undefined && query.actorId !== undefined) return undefined;
  if (query.bucketChars > ROLLUP_BUCKET_CHARS) return undefined;
  const onTheHour = [query.since, query.until].every(
    (bound) => ISO.test(bound) && bound.slice(ROLLUP_BUCKET_CHARS) === ':00:00.000Z',
  );
  if (!onTheHour) return undefined;
  if (query.connectionId !== undefined) return { scope: 'connection', subject: query.connectionId };
  if (query.actorId !== undefined) return { scope: 'agent', subject: query.actorId };
  return { scope: 'workspace', subject: '' };
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function fromRollup(query: AuditActivityQuery, rollup: Rollup) {
  return sql<SummedRow>`
    select substr(bucket, 1, ${sql.lit(query.bucketChars)}) as bucket, bin,
      sum(calls) as calls, sum(refusals) as refusals, sum(errors) as errors
    from audit_activity_rollup
    where workspace_id = ${query.workspaceId} and scope = ${rollup.scope}
      and subject = ${rollup.subject}
      and audit_activity_rollup.bucket >= ${query.since.slice(0, ROLLUP_BUCKET_CHARS)}
      and audit_activity_rollup.bucket < ${query.until.slice(0, ROLLUP_BUCKET_CHARS)}
    group by 1, 2
    order by 1, 2`;
}

function fromLog(query: AuditActivityQuery) {
  const only = [
    query.connectionId === undefined ? sql`` : sql`and connection_id = ${query.connectionId}`,
    query.actorId === undefined ? sql`` : sql`and actor_id = ${query.actorId}`,
  ];
  return sql<SummedRow>`
    select substr(at, 1, ${sql.lit(query.bucketChars)}) as bucket, ${LATENCY_BIN_SQL} as bin,
      count(*) as calls,
      sum(case when decision = 'denied' then 1 else 0 end) as refusals,
      sum(case when outcome = 'error' then 1 else 0 end) as errors
    from audit_events
    where workspace_id = ${query.workspaceId} and actor_kind = 'agent'
      and at >= ${query.since} and at < ${query.until} ${only[0]} ${only[1]}
    group by 1, 2
    order by 1, 2`;
}
