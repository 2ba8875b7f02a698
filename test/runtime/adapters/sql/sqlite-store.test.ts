import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { storeMigrations } from '../../../../runtime/adapters/sql/migrations/migrate.ts';
import { openStore } from '../../../../runtime/adapters/sql/open-store.ts';
import { anEvent, aWorkspace, T0 } from '../../../support/store-fixtures.ts';
import { describeStoreContract } from './store-contract.ts';

const folder = mkdtempSync(join(tmpdir(), 'portcullis-store-'));
let files = 0;

afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

describeStoreContract('SQLite', {
  async create() {
    // A folder that does not exist yet: openStore makes it.
    const sqliteFile = join(folder, `db-${++files}`, 'portcullis.db');
    return () => openStore({ sqliteFile });
  },
});

describe('the SQLite store', () => {
  it('runs in memory', async () => {
    const store = await openStore({ sqliteFile: ':memory:' });
    try {
      await store.workspaces.create(aWorkspace());
      expect(await store.workspaces.list()).toEqual([aWorkspace()]);
    } finally {
      await store.close();
    }
  });

  it('leaves its file in WAL mode', async () => {
    const sqliteFile = join(folder, 'wal.db');
    await (await openStore({ sqliteFile })).close();
    const database = new BetterSqlite3(sqliteFile, { readonly: true });
    try {
      expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      database.close();
    }
  });
});

describe('SQLite checkpoints', () => {
  it('copy the WAL into the database file on a timer, never inside a commit, and off the event loop', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const sqliteFile = join(folder, 'checkpoints.db');
    const store = await openStore({ sqliteFile });
    try {
      const before = statSync(sqliteFile).size;
      // Far more pages than SQLite's own automatic checkpoint (1,000) would let pass.
      for (let call = 0; call < 2_000; call++) await store.audit.appendMany([anEvent()]);
      expect(statSync(sqliteFile).size).toBe(before);
      // The first tick starts the checkpoints' thread; nothing is copied on this one.
      vi.advanceTimersByTime(1_000);
      expect(statSync(sqliteFile).size).toBe(before);
      // This thread never returns to its event loop from here, so only that thread can copy the WAL.
      const pause = new Int32Array(new SharedArrayBuffer(4));
      const deadline = Date.now() + 30_000;
      while (statSync(sqliteFile).size === before && Date.now() < deadline)
        Atomics.wait(pause, 0, 0, 20);
      expect(statSync(sqliteFile).size).toBeGreaterThan(before);
    } finally {
      await store.close();
      vi.useRealTimers();
    }
  });
});

describe('the SQLite migrations', () => {
  function migratorOn(file: string): { migrator: Migrator; db: Kysely<unknown> } {
    const db = new Kysely<unknown>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(file) }),
    });
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => storeMigrations('sqlite') },
    });
    return { migrator, db };
  }

  it('have nothing left to run on a file the store opened', async () => {
    const sqliteFile = join(folder, 'migrated.db');
    await (await openStore({ sqliteFile })).close();
    const { migrator, db } = migratorOn(sqliteFile);
    try {
      const { error, results } = await migrator.migrateToLatest();
      expect(error).toBeUndefined();
      expect(results).toEqual([]);
    } finally {
      await db.destroy();
    }
  });

  it('rebuild the audit log of an older file on plain rowids, keeping every row and index', async () => {
    const sqliteFile = join(folder, 'audit-autoincrement.db');
    const db = new Kysely<unknown>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(sqliteFile) }),
    });
    const initial = { '0001-initial': storeMigrations('sqlite')['0001-initial']! };
    const { error } = await new Migrator({
      db,
      provider: { getMigrations: async () => initial },
    }).migrateToLatest();
    expect(error).toBeUndefined();
    await db.destroy();
    // Every column set, each row to its own values, so a column moved or dropped shows.
    const [old, oldIndexes] = openOnly(sqliteFile, (database) => {
      const insert = database.prepare(
        `insert into audit_events (at, workspace_id, actor_kind, actor_id, action, subject,
           connection_id, decision, reason, outcome, upstream_host, upstream_status, latency_ms,
           request_bytes, reply_bytes, argument_hash)
         values (?, ?, 'agent', ?, ?, ?, ?, 'allowed', ?, 'ok', ?, ?, ?, ?, ?, ?)`,
      );
      ['first', 'second', 'third'].forEach((action, n) => {
        insert.run(
          T0,
          `ws_${n}`,
          `agt_${n}`,
          action,
          `subject ${n}`,
          `con_${n}`,
          `reason_${n}`,
          `host${n}.example`,
          200 + n,
          n + 0.25,
          10 + n,
          20 + n,
          `${n}`.repeat(64),
        );
      });
      return [
        database.prepare('select * from audit_events order by id').all(),
        database
          .prepare("select name, sql from sqlite_master where type = 'index' order by name")
          .all(),
      ];
    });

    const store = await openStore({ sqliteFile });
    try {
      await store.audit.appendMany([anEvent({ action: 'after the upgrade' })]);
      const events = await store.audit.query({ ascending: true, limit: 10 });
      expect(events.map((event) => [event.id, event.action])).toEqual([
        [1, 'first'],
        [2, 'second'],
        [3, 'third'],
        [4, 'after the upgrade'],
      ]);
    } finally {
      await store.close();
    }
    const [rows, table, indexes] = openOnly(sqliteFile, (database) => [
      database.prepare('select * from audit_events where id <= 3 order by id').all(),
      database
        .prepare("select sql from sqlite_master where type = 'table' and name = 'audit_events'")
        .pluck()
        .get() as string,
      database
        .prepare("select name, sql from sqlite_master where type = 'index' order by name")
        .all(),
    ]);
    // Every old value kept; the columns added since (0003, 0004, 0013, 0018, 0026) are empty.
    expect(rows).toEqual(
      (old as Array<Record<string, unknown>>).map((row) => ({
        ...row,
        traceparent: null,
        upstream_address: null,
        via: null,
        delegation: null,
        prev_hash: null,
        hash: null,
      })),
    );
    expect(table).not.toMatch(/autoincrement/i);
    // The old file's indexes are all kept; later migrations add only their own tables'
    // (0005: oauth_*, 0006 and 0008: remote_*, 0007: upstream_*, 0012: member_grants,
    // 0014: rate_limits, 0018: audit_journal_folds, 0021: tasks, 0022: approvals, 0023: identity_providers, member_identities, idp_*), 0015 the
    // audit log's by connection and 0016 its console reads.
    expect(
      (indexes as Array<{ name: string }>).filter(
        (index) =>
          !/oauth_|remote_|upstream_|member_grants|rate_limits|audit_journal_folds|tasks_|approvals_|identity_providers|member_identities|idp_|audit_events_(connection_idx|workspace_at_idx|connection_at_idx|actor_at_idx|actor_idx|action_idx)$/.test(
            index.name,
          ),
      ),
    ).toEqual(oldIndexes);
    expect(indexes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'audit_events_workspace_idx' }),
        expect.objectContaining({ name: 'audit_events_at_idx' }),
      ]),
    );
  });

  it('refuse a file migrated by a newer version', async () => {
    const sqliteFile = join(folder, 'newer.db');
    await (await openStore({ sqliteFile })).close();
    const database = new BetterSqlite3(sqliteFile);
    database
      .prepare('insert into kysely_migration (name, timestamp) values (?, ?)')
      .run('9999-from-the-future', new Date(0).toISOString());
    database.close();
    await expect(openStore({ sqliteFile })).rejects.toThrow(/9999-from-the-future/);
  });
});

/** Runs `work` on the file through a connection of its own, then closes it. */
function openOnly<T>(file: string, work: (database: BetterSqlite3.Database) => T): T {
  const database = new BetterSqlite3(file);
  try {
    return work(database);
  } finally {
    database.close();
  }
}

describe('openStore', () => {
  it.each([
    ['neither a database URL nor a file', {}],
    ['a database URL of another engine', { databaseUrl: 'mysql://user:pw@localhost/db' }],
  ])('refuses %s', async (_, options) => {
    await expect(openStore(options)).rejects.toBeInstanceOf(TypeError);
  });
});
