/**
 * PostgreSQL for tests: the server at PORTCULLIS_TEST_DATABASE_URL (default:
 * the local `test` database), in schemas of their own that are dropped at the
 * end, so test files and reruns never share tables.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEST_DATABASE_URL =
  process.env.PORTCULLIS_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestSchemas {
  /** A new, empty schema; its name. */
  create(): Promise<string>;
  /** A connection URL whose search path is the schema. */
  urlFor(schema: string): string;
  /** Runs a statement as the test's administrator. */
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  /** Drops every schema it created, and disconnects. */
  dropAll(): Promise<void>;
}

export function testSchemas(): TestSchemas {
  const admin = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
  const created: string[] = [];
  return {
    async create() {
      const schema = `portcullis_test_${randomBytes(6).toString('hex')}`;
      created.push(schema);
      await admin.query(`create schema ${schema}`);
      return schema;
    },
    urlFor(schema) {
      const url = new URL(TEST_DATABASE_URL);
      url.searchParams.set('options', `-c search_path=${schema}`);
      return url.toString();
    },
    query: (text, values) => admin.query(text, values),
    async dropAll() {
      try {
        for (const schema of created) await admin.query(`drop schema if exists ${schema} cascade`);
      } finally {
        await admin.end();
      }
    },
  };
}
