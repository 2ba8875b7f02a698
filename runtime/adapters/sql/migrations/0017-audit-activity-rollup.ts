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
 * both engines); the test of the rollup compares it with the live sums.
 * Migration 0018 drops the trigger: the store adds the same sums, counted
 * in JavaScript from each batch it writes (`rows/activity-rollup-rows.ts`),
 * in the transaction of each audit write.
 */
import { type Kysely, type Migration, sql } from 'kysely';
import {
  figures,
  ROLLUP_ADD_ON_CONFLICT,
  ROLLUP_COLUMNS,
  SCOPES,
  sumsOf,
} from '../tables/activity-rollup-sums.ts';
import type { Engine } from '../tables/schema.ts';

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
    .raw(`insert into audit_activity_rollup (${ROLLUP_COLUMNS}) ${sumsOf('audit_events')}`)
    .execute(db);
}

/** A row trigger: each agent call upserted into its three rows. */
function sqliteTrigger(): string[] {
  const { bucket, bin, refused, failed } = figures((column) => `new.${column}`);
  const upserts = SCOPES.map(
    ([scope, column]) => `insert into audit_activity_rollup (${ROLLUP_COLUMNS})
      select new.workspace_id, '${scope}', ${column === null ? "''" : `new.${column}`}, ${bucket},
        ${bin}, 1, ${refused}, ${failed}
      where ${column === null ? 'true' : `new.${column} is not null`}
      ${ROLLUP_ADD_ON_CONFLICT};`,
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
      insert into audit_activity_rollup (${ROLLUP_COLUMNS})
      select * from (${sumsOf('new_events')}) as sums order by 1, 2, 3, 4, 5
      ${ROLLUP_ADD_ON_CONFLICT};
      return null;
    end $$`,
    `create trigger audit_activity_rollup_add after insert on audit_events
    referencing new table as new_events for each statement
    execute function audit_activity_rollup_add()`,
  ];
}
