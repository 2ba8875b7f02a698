/**
 * Runs against the PostgreSQL at PORTCULLIS_TEST_DATABASE_URL (default: the
 * local `test` database), in schemas of their own that are dropped at the
 * end, so test files and reruns never share tables.
 *
 * The contract runs in one schema for this file, emptied before each test
 * (migrating a new schema per test would cost most of the run).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../../runtime/adapters/sql/open-store.ts';
import { testSchemas } from '../../../support/postgres.ts';
import { aWorkspace } from '../../../support/store-fixtures.ts';
import { describeStoreContract } from './store-contract.ts';

const schemas = testSchemas();
const newSchema = () => schemas.create();
const inSchema = (schema: string) => schemas.urlFor(schema);

/** Empties every store table (not kysely's own) and sets the revision back to 0. */
async function empty(schema: string): Promise<void> {
  const { rows } = await schemas.query<{ tablename: string }>(
    `select tablename from pg_tables
      where schemaname = $1 and tablename not like 'kysely\\_%' and tablename <> 'revision'`,
    [schema],
  );
  if (rows.length === 0) return;
  const tables = rows.map((row) => `${schema}.${row.tablename}`).join(', ');
  await schemas.query(`truncate ${tables} restart identity cascade`);
  await schemas.query(`update ${schema}.revision set value = 0`);
}

let contractSchema = '';

beforeAll(async () => {
  contractSchema = await newSchema();
});

afterAll(() => schemas.dropAll());

describeStoreContract('PostgreSQL', {
  async create() {
    await empty(contractSchema);
    const databaseUrl = inSchema(contractSchema);
    return () => openStore({ databaseUrl });
  },
});

describe('the PostgreSQL store', () => {
  it('migrates a new schema, and opens it again after a restart', async () => {
    const databaseUrl = inSchema(await newSchema());
    const first = await openStore({ databaseUrl });
    try {
      await first.workspaces.create(aWorkspace());
    } finally {
      await first.close();
    }
    const second = await openStore({ databaseUrl });
    try {
      expect(await second.workspaces.list()).toEqual([aWorkspace()]);
    } finally {
      await second.close();
    }
  });

  it('keeps each schema to itself', async () => {
    const [one, two] = [await newSchema(), await newSchema()];
    const first = await openStore({ databaseUrl: inSchema(one) });
    const second = await openStore({ databaseUrl: inSchema(two) });
    try {
      await first.workspaces.create(aWorkspace());
      expect(await second.workspaces.list()).toEqual([]);
      expect(await second.revision()).toBe(0);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('holds a read of the key to seal under: a rotation writing it makes the read wait, then answer the new key', async () => {
    const schema = await newSchema();
    const rotation = await openStore({ databaseUrl: inSchema(schema) });
    const sealer = await openStore({ databaseUrl: inSchema(schema) });
    try {
      await rotation.settings.put('vault.current_key_id', 'old');
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let written = () => {};
      const wrote = new Promise<void>((resolve) => {
        written = resolve;
      });
      const rotating = rotation.transaction(async (tx) => {
        await tx.settings.put('vault.current_key_id', 'new');
        written();
        await gate;
      });
      await wrote;
      const held = sealer.transaction((tx) => tx.settings.getHeld('vault.current_key_id'));
      // Either the held read answers while the rotation is open (it did not wait), or it is seen waiting.
      const outcome = await Promise.race([
        held.then((value) => `answered ${value}`),
        waitingOnLock().then(() => 'waiting'),
      ]);
      release();
      await rotating;
      expect(outcome).toBe('waiting');
      expect(await held).toBe('new');
    } finally {
      await Promise.all([rotation.close(), sealer.close()]);
    }
  });
});

/** Resolves once a held read of a setting waits for a lock (polled, never timed). */
async function waitingOnLock(): Promise<void> {
  for (;;) {
    const { rows } = await schemas.query<{ waiting: string }>(
      `select count(*) as waiting from pg_stat_activity
        where wait_event_type = 'Lock' and query like '%"settings"%for share%'
          and query not like '%pg_stat_activity%'`,
    );
    if (Number(rows[0]?.waiting) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
