/**
 * Migration 0015 on a file an earlier version wrote: its members keep
 * signing in as they did, each a `member` (no console role) until an owner
 * or an operator gives them one.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { storeMigrations } from '../../../../runtime/adapters/sql/migrations/migrate.ts';
import { openStore } from '../../../../runtime/adapters/sql/open-store.ts';

describe('migration 0015-member-roles', () => {
  it("makes every earlier member a 'member', whose role can then change", async () => {
    const sqliteFile = join(mkdtempSync(join(tmpdir(), 'portcullis-0015-')), 'old.db');
    const db = new Kysely<unknown>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(sqliteFile) }),
    });
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => storeMigrations('sqlite') },
    });
    const { error } = await migrator.migrateTo('0012-member-grants');
    expect(error).toBeUndefined();
    await db.destroy();
    const old = new BetterSqlite3(sqliteFile);
    const at = '2026-01-01T00:00:00.000Z';
    old
      .prepare("insert into workspaces (id, name, created_at) values ('ws_1', 'default', ?)")
      .run(at);
    old
      .prepare(
        "insert into oauth_members (id, workspace_id, name, password_hash, created_at, updated_at) values ('mem_1', 'ws_1', 'ada', 'h', ?, ?)",
      )
      .run(at, at);
    old.close();

    const store = await openStore({ sqliteFile });
    try {
      expect((await store.oauth.members.byName('ada'))?.role).toBe('member');
      expect(await store.oauth.members.setRole('mem_1', 'owner', at)).toBe(true);
      expect((await store.oauth.members.list('ws_1'))[0]?.role).toBe('owner');
    } finally {
      await store.close();
    }
  });
});
