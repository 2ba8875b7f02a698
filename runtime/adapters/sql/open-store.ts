/**
 * Opens the durable store and brings its schema to the latest migration:
 * PostgreSQL for a `postgres://` (or `postgresql://`) URL, otherwise the
 * embedded SQLite file (`:memory:` for a throwaway one). Each engine's driver
 * is loaded only when it is the one configured.
 */
import { Kysely, sql } from 'kysely';
import type { Store } from '../../core/ports/store.ts';
import { KyselyStore } from './kysely-store.ts';
import { migrateToLatest } from './migrations/migrate.ts';
import type { Database, Engine } from './tables/schema.ts';

export interface OpenStoreOptions {
  /** `postgres://…` selects PostgreSQL. */
  databaseUrl?: string;
  /** The SQLite file when there is no `databaseUrl`. */
  sqliteFile?: string;
}

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const { db, engine } = await connect(options);
  try {
    await migrateToLatest(db, {
      engine,
      ...(engine === 'postgres' ? { migrationTableSchema: await currentSchema(db) } : {}),
    });
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return new KyselyStore(db, engine);
}

async function connect(
  options: OpenStoreOptions,
): Promise<{ db: Kysely<Database>; engine: Engine }> {
  const { databaseUrl, sqliteFile } = options;
  if (databaseUrl !== undefined && databaseUrl !== '') {
    // The URL may hold a password: never repeat it in a message.
    if (!/^postgres(?:ql)?:\/\//i.test(databaseUrl)) {
      throw new TypeError('databaseUrl must be a postgres:// or postgresql:// URL');
    }
    const { postgresDialect } = await import('./postgres-dialect.ts');
    return {
      db: new Kysely<Database>({ dialect: postgresDialect(databaseUrl) }),
      engine: 'postgres',
    };
  }
  if (sqliteFile === undefined || sqliteFile === '') {
    throw new TypeError('openStore needs a databaseUrl or an sqliteFile');
  }
  const { sqliteDialect } = await import('./sqlite-dialect.ts');
  return { db: new Kysely<Database>({ dialect: sqliteDialect(sqliteFile) }), engine: 'sqlite' };
}

/**
 * Where kysely keeps its migration tables on PostgreSQL: the first schema on
 * the search path, named explicitly (kysely otherwise finds a table of that
 * name in any schema and skips creating its own).
 */
async function currentSchema(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(
    db,
  );
  const schema = rows[0]?.schema;
  if (schema === undefined || schema === null) {
    throw new TypeError('the PostgreSQL search_path names no existing schema');
  }
  return schema;
}
