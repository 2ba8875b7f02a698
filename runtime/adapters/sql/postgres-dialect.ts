/**
 * The shared engine: a `pg` pool on a PostgreSQL URL. Loaded by `openStore`
 * only when `DATABASE_URL` is set, so a SQLite start never loads `pg`.
 */
import { PostgresDialect } from 'kysely';
import pg from 'pg';

/** The URL may hold a password: nothing here repeats it. */
export function postgresDialect(databaseUrl: string): PostgresDialect {
  const pool = new pg.Pool({ connectionString: databaseUrl });
  // An idle connection that drops is discarded by the pool; without a
  // listener the 'error' event would end the process.
  pool.on('error', () => {});
  return new PostgresDialect({ pool });
}
