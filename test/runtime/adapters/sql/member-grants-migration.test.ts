/**
 * Migration 0012 on a file an earlier version wrote: the agents earlier
 * consents made learn the member they act for; an operator's agent none.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { storeMigrations } from '../../../../runtime/adapters/sql/migrations/migrate.ts';
import { openStore } from '../../../../runtime/adapters/sql/open-store.ts';

describe('migration 0012-member-grants', () => {
  it('fills agents.member_id from the consents that made them', async () => {
    const sqliteFile = join(mkdtempSync(join(tmpdir(), 'portcullis-0012-')), 'old.db');
    const db = new Kysely<unknown>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(sqliteFile) }),
    });
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => storeMigrations('sqlite') },
    });
    const { error } = await migrator.migrateTo('0011-remote-feature-pins');
    expect(error).toBeUndefined();
    await db.destroy();
    const old = new BetterSqlite3(sqliteFile);
    const at = '2026-01-01T00:00:00.000Z';
    old
      .prepare("insert into workspaces (id, name, created_at) values ('ws_1', 'default', ?)")
      .run(at);
    const agent = old.prepare(
      "insert into agents (id, workspace_id, name, key_prefix, key_hash, status, created_at, revoked_at) values (?, 'ws_1', ?, 'oauth', ?, 'active', ?, null)",
    );
    agent.run('agt_consent', 'ada-1234567', 'hash_1', at);
    agent.run('agt_operator', 'deploy-bot', 'hash_2', at);
    old
      .prepare(
        "insert into oauth_members (id, workspace_id, name, password_hash, created_at, updated_at) values ('mem_1', 'ws_1', 'ada', 'h', ?, ?)",
      )
      .run(at, at);
    old
      .prepare(
        "insert into oauth_consents (id, workspace_id, member_id, client_id, client_name, agent_id, scopes, status, created_at, updated_at, revoked_at) values ('con_1', 'ws_1', 'mem_1', 'pcc_1', 'App', 'agt_consent', '[\"tools:read\"]', 'active', ?, ?, null)",
      )
      .run(at, at);
    old.close();

    const store = await openStore({ sqliteFile });
    try {
      expect((await store.agents.byId('ws_1', 'agt_consent'))?.memberId).toBe('mem_1');
      expect((await store.agents.byId('ws_1', 'agt_operator'))?.memberId).toBeNull();
      expect(await store.memberGrants.all()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
