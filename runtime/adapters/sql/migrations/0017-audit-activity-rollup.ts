/**
 * The console's 7 and 30 day charts read sums, not the log (issue 24: under
 * 100 ms at a million events): `audit_activity_rollup` holds the agents'
 * calls, refusals and failures per hour and latency bin, kept by a trigger
 * in the same statement as every audit insert.
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
 *   read groups like the log's own sum did, and a new bin needs no new column.
 * - SQLite keeps it WITHOUT ROWID: the rows sit in key order, so a chart's
 *   read is one range of the table itself.
 * - Kept by a trigger on `audit_events`, so every insert adds to it in the
 *   same statement, with no code of ours between: on SQLite a row trigger
 *   (three upserts inside the engine), on PostgreSQL a statement trigger
 *   that sums the statement's new rows (its transition table) first, since
 *   one upsert may not touch a row twice, and upserts them in key order, so
 *   concurrent writers lock shared rows in the same order (no deadlock
 *   between replicas). Both sum with the backfill's own expressions. Done in
 *   the application instead (summed in JS, one upsert in a transaction of
 *   its own) an agent call's audit write cost about twice as much again.
 *   The bins are `LATENCY_BOUNDS_MS` as this migration writes them into the
 *   trigger: changing the bounds takes a migration that rebuilds both.
 *
 * 0016's five indexes all stay, each the one SQLite's planner takes for a
 * read the console makes: (workspace, at) for the 1 h to 24 h workspace chart
 * and a time range of the audit page (and the count that picks its plan),
 * (connection, at) for the 1 h to 24 h connection chart, (actor, at) for the
 * agent's chart and an agent's time range, (actor, id) for the audit page by
 * agent newest first, (workspace, action, id) for it by action. The charts
 * moved to this rollup are the 7 and 30 day ones only, which no index of
 * the log serves well.
 *
 * The backfill sums the existing log in one insert … select (the same on
 * both engines); the test of the rollup compares it with the live trigger.
 */
import { type Kysely, type Migration, sql } from 'kysely';
import { latencyBinSql } from '../tables/latency-bin.ts';
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
      for (const statement of engine === 'sqlite' ? sqliteTrigger() : postgresTrigger()) {
        await sql.raw(statement).execute(db);
      }
      await backfillAuditActivityRollup(db);
    },
  };
}

/** Sums the audit log's agent calls into an empty rollup: one statement. */
export async function backfillAuditActivityRollup(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(`insert into audit_activity_rollup (${COLUMNS}) ${sumsOf('audit_events')}`)
    .execute(db);
}

const COLUMNS = 'workspace_id, scope, subject, bucket, bin, calls, refusals, errors';
const ADD_ON_CONFLICT = `on conflict (workspace_id, scope, subject, bucket, bin) do update set
    calls = audit_activity_rollup.calls + excluded.calls,
    refusals = audit_activity_rollup.refusals + excluded.refusals,
    errors = audit_activity_rollup.errors + excluded.errors`;

/** Each scope and its subject column (none: the whole workspace, subject ''). */
const SCOPES = [
  ['workspace', null],
  ['connection', 'connection_id'],
  ['agent', 'actor_id'],
] as const;

/** An event's bucket, bin, refusal and failure, its columns read through `ref`. */
function figures(ref: (column: string) => string) {
  return {
    bucket: `substr(${ref('at')}, 1, ${ROLLUP_BUCKET_CHARS})`,
    bin: latencyBinSql(ref('latency_ms')),
    refused: `case when ${ref('decision')} = 'denied' then 1 else 0 end`,
    failed: `case when ${ref('outcome')} = 'error' then 1 else 0 end`,
  };
}

/**
 * The rollup rows of the agent calls in `source` (a table): one pass over it,
 * each call taken once per scope, grouped (a call without a connection or
 * an agent counts for the workspace only).
 */
function sumsOf(source: string): string {
  const { bucket, bin, refused, failed } = figures((column) => column);
  const scopes = SCOPES.map(([scope]) => `select '${scope}' as scope`).join(' union all ');
  const subject = `case scope ${SCOPES.map(
    ([scope, column]) => `when '${scope}' then ${column ?? "''"}`,
  ).join(' ')} end`;
  return `select workspace_id, scope, ${subject}, ${bucket}, ${bin},
      count(*), sum(${refused}), sum(${failed})
    from ${source} cross join (${scopes}) as scopes
    where actor_kind = 'agent' and workspace_id is not null and ${subject} is not null
    group by workspace_id, scope, ${subject}, ${bucket}, ${bin}`;
}

/** A row trigger: each agent call upserted into its three rows. */
function sqliteTrigger(): string[] {
  const { bucket, bin, refused, failed } = figures((column) => `new.${column}`);
  const upserts = SCOPES.map(
    ([scope, column]) => `insert into audit_activity_rollup (${COLUMNS})
      select new.workspace_id, '${scope}', ${column === null ? "''" : `new.${column}`}, ${bucket},
        ${bin}, 1, ${refused}, ${failed}
      where ${column === null ? 'true' : `new.${column} is not null`}
      ${ADD_ON_CONFLICT};`,
  );
  return [
    `create trigger audit_activity_rollup_add after insert on audit_events
    when new.actor_kind = 'agent' and new.workspace_id is not null
    begin ${upserts.join('\n')} end`,
  ];
}

/** A statement trigger: the statement's new rows summed, then upserted in key order. */
function postgresTrigger(): string[] {
  return [
    `create function audit_activity_rollup_add() returns trigger language plpgsql
    set search_path from current as $$
    begin
      insert into audit_activity_rollup (${COLUMNS})
      select * from (${sumsOf('new_events')}) as sums order by 1, 2, 3, 4, 5
      ${ADD_ON_CONFLICT};
      return null;
    end $$`,
    `create trigger audit_activity_rollup_add after insert on audit_events
    referencing new table as new_events for each statement
    execute function audit_activity_rollup_add()`,
  ];
}
