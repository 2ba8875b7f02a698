/**
 * Migration 0017's backfill sums a log into the same rollup rows as the
 * live upserts of every audit insert, on both engines: the events written
 * through the store, the rollup read, emptied, backfilled, read again. And
 * a file migrated from 0016 charts the log it already had.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { backfillAuditActivityRollup } from '../../../../runtime/adapters/sql/migrations/0017-audit-activity-rollup.ts';
import { storeMigrations } from '../../../../runtime/adapters/sql/migrations/migrate.ts';
import { openStore } from '../../../../runtime/adapters/sql/open-store.ts';
import type { Store } from '../../../../runtime/core/ports/store.ts';
import { activityOfEvents, variedAuditEvents } from '../../../support/activity-events.ts';
import { testSchemas } from '../../../support/postgres.ts';

const schemas = testSchemas();
afterAll(() => schemas.dropAll());

async function rollupOf(db: Kysely<unknown>) {
  const { rows } = await sql<{
    scope: string;
    bin: unknown;
    calls: unknown;
    refusals: unknown;
    errors: unknown;
  }>`
    select workspace_id, scope, subject, bucket, bin, calls, refusals, errors
    from audit_activity_rollup order by workspace_id, scope, subject, bucket, bin`.execute(db);
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
    expect(live.length).toBeGreaterThan(150);
    expect(new Set(live.map((row) => row.scope)).size).toBe(3);
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

describe('migration 0017 on a log an earlier version wrote', () => {
  it("sums the agents' calls already there, so the charts show them", async () => {
    const sqliteFile = join(mkdtempSync(join(tmpdir(), 'portcullis-0017-')), 'old.db');
    const db = new Kysely<unknown>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(sqliteFile) }),
    });
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => storeMigrations('sqlite') },
    });
    expect((await migrator.migrateTo('0016-audit-activity')).error).toBeUndefined();
    const events = variedAuditEvents();
    for (const event of events) {
      await sql`insert into audit_events (at, workspace_id, actor_kind, actor_id, action,
          connection_id, decision, reason, outcome, latency_ms)
        values (${event.at}, ${event.workspaceId}, ${event.actorKind}, ${event.actorId},
          ${event.action}, ${event.connectionId}, ${event.decision}, ${event.reason},
          ${event.outcome}, ${event.latencyMs})`.execute(db);
    }
    await db.destroy();

    const store = await openStore({ sqliteFile });
    try {
      const stored = await store.audit.query({ ascending: true });
      const query = {
        workspaceId: 'ws_1',
        since: '2025-01-01T00:00:00.000Z',
        until: '2025-01-03T00:00:00.000Z',
      };
      for (const bucketChars of [10, 13, 16] as const) {
        const want = activityOfEvents(stored, { ...query, bucketChars });
        expect(want.length).toBeGreaterThan(5);
        expect(await store.audit.activity({ ...query, bucketChars })).toEqual(want);
      }
    } finally {
      await store.close();
    }
  });
});

describe('which the charts read', () => {
  it('the rollup for hour buckets with bounds on the hour (7 and 30 days), the log for the rest', async () => {
    const sqliteFile = join(mkdtempSync(join(tmpdir(), 'portcullis-0017-')), 'store.db');
    const store = await openStore({ sqliteFile });
    const db = new Kysely<unknown>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(sqliteFile) }),
    });
    try {
      await store.audit.appendMany(variedAuditEvents());
      const stored = await store.audit.query({ ascending: true });
      const onTheHour = {
        workspaceId: 'ws_1',
        since: '2025-01-01T00:00:00.000Z',
        until: '2025-01-03T00:00:00.000Z',
      };
      const inTheHour = { ...onTheHour, since: '2025-01-01T09:30:00.000Z' };
      const wants = {
        hours: activityOfEvents(stored, { ...onTheHour, bucketChars: 13 }),
        days: activityOfEvents(stored, { ...onTheHour, bucketChars: 10 }),
      };
      const pair = {
        ...onTheHour,
        bucketChars: 13,
        connectionId: 'conn_1',
        actorId: 'agt_1',
      } as const;
      expect(wants.hours.length).toBeGreaterThan(5);
      expect(activityOfEvents(stored, pair).length).toBeGreaterThan(0);
      expect(activityOfEvents(stored, { ...inTheHour, bucketChars: 13 }).length).toBeGreaterThan(0);
      // The log emptied behind the store's back: only what reads the rollup still answers.
      await sql`delete from audit_events`.execute(db);
      expect(await store.audit.activity({ ...onTheHour, bucketChars: 13 })).toEqual(wants.hours);
      expect(await store.audit.activity({ ...onTheHour, bucketChars: 10 })).toEqual(wants.days);
      expect(await store.audit.activity({ ...onTheHour, bucketChars: 15 })).toEqual([]);
      expect(await store.audit.activity({ ...inTheHour, bucketChars: 13 })).toEqual([]);
      expect(await store.audit.activity(pair)).toEqual([]);
    } finally {
      await db.destroy();
      await store.close();
    }
  });
});
