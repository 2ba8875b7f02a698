/**
 * The audit journal (issue 33): each event is stored with the hash chain it
 * was journalled in (`prev_hash`, `hash`: sha256 over the previous hash and
 * the event's canonical text, `core/governance/audit-chain.ts`), and the
 * journals' fold progress is kept in `audit_journal_folds` (one row per
 * journal file: the bytes of it already in the store), written in the
 * same transaction as the events it folded, so a fold interrupted at any
 * point is taken up again without an event lost or stored twice.
 *
 * 0017's trigger goes: the store adds an insert's agent calls to the
 * activity rollup itself, in the insert's transaction: the batch's rows
 * summed in JavaScript with 0017's keys and sums (`rows/activity-rollup-rows.ts`)
 * and written with one upsert, so the charts keep their answers and
 * an insert of a fold's hundreds of events sums them once instead of
 * upserting three rows for each. Events written before 0018 have no hash
 * (`audit verify` counts them as before the chain).
 */
import { type Kysely, type Migration, sql } from 'kysely';
import type { Engine } from '../tables/schema.ts';

export function auditChainMigration(engine: Engine): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('audit_events').addColumn('prev_hash', 'text').execute();
      await db.schema.alterTable('audit_events').addColumn('hash', 'text').execute();
      await db.schema
        .createTable('audit_journal_folds')
        .addColumn('journal', 'text', (col) => col.primaryKey())
        .addColumn('folded_bytes', 'bigint', (col) => col.notNull())
        .execute();
      await sql`drop trigger if exists audit_activity_rollup_add ${sql.raw(
        engine === 'postgres' ? 'on audit_events' : '',
      )}`.execute(db);
      if (engine === 'postgres')
        await sql`drop function if exists audit_activity_rollup_add()`.execute(db);
    },
  };
}
