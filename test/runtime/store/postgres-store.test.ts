/**
 * Runs against the PostgreSQL at PORTCULLIS_TEST_DATABASE_URL (default: the
 * local `test` database), in schemas of their own that are dropped at the
 * end, so test files and reruns never share tables.
 *
 * The contract runs in one schema for this file, emptied before each test
 * (migrating a new schema per test would cost most of the run).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../runtime/store/open-store.ts';
import { testSchemas } from '../../support/postgres.ts';
import { describeStoreContract } from './store-contract.ts';
import { aWorkspace } from './store-fixtures.ts';

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
});
