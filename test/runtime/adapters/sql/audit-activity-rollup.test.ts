/**
 * Migration 0017's backfill sums a log into the same rollup rows as the
 * live upserts of every audit insert, on both engines: the events written
 * through the store, the rollup read, emptied, backfilled, read again.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { backfillAuditActivityRollup } from '../../../../runtime/adapters/sql/migrations/0017-audit-activity-rollup.ts';
import { openStore } from '../../../../runtime/adapters/sql/open-store.ts';
import type { Store } from '../../../../runtime/core/ports/store.ts';
import { variedAuditEvents } from '../../../support/activity-events.ts';
import { testSchemas } from '../../../support/postgres.ts';

const schemas = testSchemas();
afterAll(() => schemas.dropAll());

async function rollupOf(db: Kysely<unknown>) {
  const { rows } = await sql<{
    scope: string;
    span: string;
    bin: unknown;
    calls: unknown;
    refusals: unknown;
    errors: unknown;
  }>`
    select workspace_id, scope, subject, span, bucket, bin, calls, refusals, errors
    from audit_activity_rollup order by workspace_id, scope, subject, span, bucket, bin`.execute(
    db,
  );
  return rows.map((row) => ({
    ...row,
    bin: Number(row.bin),
    calls: Number(row.calls),
    refusals: Number(row.refusals),
    errors: Number(row.errors),
  }));
}

async function writeThrough(store: Store): Promise<void> {
  const events = variedAuditEvents();
  try {
    for (const event of events.slice(0, 40)) await store.audit.append(event);
    await store.audit.appendMany(events.slice(40));
  } finally {
    await store.close();
  }
}

async function backfillMatches(db: Kysely<unknown>): Promise<void> {
  try {
    const live = await rollupOf(db);
    expect(live.length).toBeGreaterThan(300);
    expect(new Set(live.map((row) => `${row.scope} ${row.span}`)).size).toBe(6);
    await sql`delete from audit_activity_rollup`.execute(db);
    expect(await rollupOf(db)).toEqual([]);
    await backfillAuditActivityRollup(db);
    expect(await rollupOf(db)).toEqual(live);
  } finally {
    await db.destroy();
  }
}

describe('migration 0017-audit-activity-rollup', () => {
  it('backfills on SQLite what the live upserts wrote', async () => {
    const sqliteFile = join(mkdtempSync(join(tmpdir(), 'portcullis-0017-')), 'store.db');
    await writeThrough(await openStore({ sqliteFile }));
    await backfillMatches(
      new Kysely({ dialect: new SqliteDialect({ database: new BetterSqlite3(sqliteFile) }) }),
    );
  });

  it('backfills on PostgreSQL what the live upserts wrote', async () => {
    const databaseUrl = schemas.urlFor(await schemas.create());
    await writeThrough(await openStore({ databaseUrl }));
    await backfillMatches(
      new Kysely({
        dialect: new PostgresDialect({
          pool: new pg.Pool({ connectionString: databaseUrl, max: 1 }),
        }),
      }),
    );
  });
});
