/**
 * The list of what the master key protects is complete: every table of the
 * migrated store with a `key_id` column (a secret sealed under a master key
 * beside it) is re-sealed by one family of `SEALED_UNDER_MASTER_KEY`, so a
 * new sealed table cannot be left out of a rotation unnoticed.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { expect, it } from 'vitest';
import { openStore } from '../../../../runtime/adapters/sql/open-store.ts';
import { SEALED_UNDER_MASTER_KEY } from '../../../../runtime/core/operator/sealed-under-master-key.ts';

/** Each sealed table, and the family that re-seals it. */
const FAMILY_OF_TABLE: Record<string, string> = {
  credentials: 'credentials',
  oauth_signing_keys: 'signingKeys',
  upstream_oauth_clients: 'upstreamClientSecrets',
  upstream_oauth_tokens: 'upstreamTokens',
  upstream_sign_ins: 'pendingSignIns',
};

it('re-seals every table that holds a secret sealed under the master key', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'portcullis-sealed-')), 'store.sqlite');
  await (await openStore({ sqliteFile: file })).close();
  const db = new BetterSqlite3(file, { readonly: true });
  const tables = db
    .prepare(
      `select m.name as name from sqlite_master m, pragma_table_info(m.name) c
        where m.type = 'table' and c.name = 'key_id' order by m.name`,
    )
    .all()
    .map((row) => (row as { name: string }).name);
  db.close();
  expect(tables).toEqual(Object.keys(FAMILY_OF_TABLE).sort());
  expect(SEALED_UNDER_MASTER_KEY.map((family) => family.name).sort()).toEqual(
    Object.values(FAMILY_OF_TABLE).sort(),
  );
});
