/**
 * The console's charts read sums, not the log (issue 24: under 100 ms at a
 * million events): `audit_activity_rollup` holds the agents' calls, refusals
 * and failures per time bucket and latency bin, kept in the same transaction
 * as every audit insert (rows/audit-activity-rollup.ts).
 *
 * Its shape, and why:
 * - One row per (workspace, scope, subject, bucket, bin). A chart is
 *   filtered to the whole workspace, one connection or one agent, so each
 *   event adds to three rows: scope 'workspace' (subject ''), 'connection'
 *   and 'agent' (subject its id). A row keyed by connection × agent would
 *   leave the whole-workspace chart summing every pair: a million events
 *   spread over 50 connections and 20 agents are nearly a million such rows.
 * - By the hour only (bucket `YYYY-MM-DDTHH`), for the 7 and 30 day charts,
 *   so one sums at most some 20,000 rows (30 days × 24 hours × the bins in
 *   use). The 1 h to 24 h charts sum the log over 0016's indexes, quick
 *   enough at a million events; a minute span as well doubled what every
 *   audit write paid for them.
 * - Bins in rows, not columns: an event touches one counter per row, the
 *   read groups like the log's own sum did, and a new bin needs no migration.
 * - SQLite keeps it WITHOUT ROWID: the rows sit in key order, so a chart's
 *   read is one range of the table itself.
 * So an audit write upserts three rows (fewer when a batch shares them); the
 * console benchmark measures what that adds to an audit insert.
 *
 * The backfill sums the existing log in one insert … select (the same on
 * both engines); the test of the rollup compares it with the live upserts.
 */
import { type Kysely, type Migration, sql } from 'kysely';
import { LATENCY_BIN_SQL } from '../tables/latency-bin.ts';
import { type Engine, ROLLUP_BUCKET_CHARS } from '../tables/schema.ts';

export function auditActivityRollupMigration(engine: Engine): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('audit_activity_rollup')
        .addColumn('workspace_id', 'text', (col) => col.notNull())
        .addColumn('scope', 'text', (col) => col.notNull())
        .addColumn('subject', 'text', (col) => col.notNull())
        .addColumn('bucket', 'text', (col) => col.notNull())
        .addColumn('bin', 'integer', (col) => col.notNull())
        .addColumn('calls', 'bigint', (col) => col.notNull())
        .addColumn('refusals', 'bigint', (col) => col.notNull())
        .addColumn('errors', 'bigint', (col) => col.notNull())
        .addPrimaryKeyConstraint('audit_activity_rollup_pkey', [
          'workspace_id',
          'scope',
          'subject',
          'bucket',
          'bin',
        ])
        .$call((table) => (engine === 'sqlite' ? table.modifyEnd(sql`without rowid`) : table))
        .execute();
      await backfillAuditActivityRollup(db);
    },
  };
}

/** Each scope's subject column ('' for the whole workspace). */
const SCOPES = [
  ['workspace', null],
  ['connection', 'connection_id'],
  ['agent', 'actor_id'],
] as const;

/** Sums the audit log's agent calls into an empty rollup: one statement. */
export async function backfillAuditActivityRollup(db: Kysely<unknown>): Promise<void> {
  const selects = SCOPES.map(([scope, column]) => {
    const subject = column === null ? sql`''` : sql.ref(column);
    const bucket = sql`substr(at, 1, ${sql.lit(ROLLUP_BUCKET_CHARS)})`;
    return sql`select workspace_id, ${sql.lit(scope)}, ${subject}, ${bucket},
        ${LATENCY_BIN_SQL}, count(*),
        sum(case when decision = 'denied' then 1 else 0 end),
        sum(case when outcome = 'error' then 1 else 0 end)
      from audit_events
      where actor_kind = 'agent' and workspace_id is not null
        ${column === null ? sql`` : sql`and ${sql.ref(column)} is not null`}
      group by workspace_id, ${column === null ? sql`` : sql`${subject}, `}${bucket}, ${LATENCY_BIN_SQL}`;
  });
  await sql`insert into audit_activity_rollup
      (workspace_id, scope, subject, bucket, bin, calls, refusals, errors)
    ${sql.join(selects, sql` union all `)}`.execute(db);
}
