/**
 * SQLite only: the audit log's id becomes a plain rowid, without
 * AUTOINCREMENT. AUTOINCREMENT makes every insert update `sqlite_sequence`
 * too, one more page in the commit on the path of every tool call. Its only
 * promise beyond a plain rowid is never to reuse the id of a deleted newest
 * row, and audit rows are never deleted, so ids stay strictly increasing and
 * `afterId` cursors keep working. PostgreSQL's identity column stays.
 *
 * The table is rebuilt the way SQLite documents (new table, copy, drop,
 * rename, indexes again) in one transaction, from its own stored definition.
 * A definition without AUTOINCREMENT is left alone, so running it twice is harmless.
 */
import { type Kysely, type Migration, sql } from 'kysely';
import type { Engine } from '../tables/schema.ts';

const AUTOINCREMENT = /\s+autoincrement\b/i;

export function auditPlainRowidMigration(engine: Engine): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (engine !== 'sqlite') return;
      await db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ type: string; sql: string }>`
          select type, sql from sqlite_master
          where tbl_name = 'audit_events' and sql is not null`.execute(trx);
        const table = rows.find((row) => row.type === 'table');
        if (table === undefined) throw new Error('the audit_events table is missing');
        if (!AUTOINCREMENT.test(table.sql)) return;
        const definition = table.sql
          .replace(AUTOINCREMENT, '')
          .replace(/^create table "audit_events"/i, 'create table "audit_events_next"');
        if (!definition.includes('"audit_events_next"'))
          throw new Error(`unexpected audit_events definition: ${table.sql}`);
        await sql.raw(definition).execute(trx);
        await sql`insert into audit_events_next select * from audit_events`.execute(trx);
        await sql`drop table audit_events`.execute(trx);
        await sql`alter table audit_events_next rename to audit_events`.execute(trx);
        for (const index of rows.filter((row) => row.type === 'index')) {
          await sql.raw(index.sql).execute(trx);
        }
      });
    },
  };
}
