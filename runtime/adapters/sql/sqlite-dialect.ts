/**
 * The embedded engine: one better-sqlite3 connection in WAL mode, shared by
 * the process (kysely queues callers on it).
 *
 * - The WAL is copied back into the database file on a timer, once a second,
 *   on a thread of its own (`wal-checkpoints.ts`), not by whichever commit
 *   happens to fill it: SQLite's automatic checkpoint runs every thousand
 *   pages inside a commit, and its two fsyncs then stall the event loop many
 *   times a second under load. A sudden stop loses nothing either way; the
 *   WAL is replayed on the next open.
 *
 * - Transactions start with `begin immediate`: the write lock is taken up
 *   front, so a transaction that reads before it writes cannot fail with
 *   `SQLITE_BUSY_SNAPSHOT` when another process (the `portcullis` command)
 *   wrote in between; it waits up to `busy_timeout` instead.
 * - Prepared statements are kept by SQL text (kysely prepares every query
 *   anew), which about doubles the rate of the hot-path queries.
 */
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from 'kysely';
import { startWalCheckpoints } from './wal-checkpoints.ts';

/** How long a writer waits for another process's write lock. */
const BUSY_TIMEOUT_MS = 5_000;
/** Distinct statements kept prepared; the oldest goes first. */
const STATEMENT_CACHE_SIZE = 256;
const CHECKPOINT_INTERVAL_MS = 1_000;
/** After a checkpoint, a WAL file larger than this is cut back. */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

/** Opens (creating it and its folder if needed) the SQLite file; `:memory:` for none. */
export function sqliteDialect(file: string): SqliteDialect {
  if (file !== ':memory:') {
    mkdirSync(dirname(file), { recursive: true });
    ownerOnly(file);
  }
  const database = new BetterSqlite3(file);
  try {
    database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
    database.pragma('wal_autocheckpoint = 0');
    database.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  } catch (error) {
    database.close();
    throw error;
  }
  const stopCheckpoints =
    file === ':memory:'
      ? () => {}
      : startWalCheckpoints({
          file,
          intervalMs: CHECKPOINT_INTERVAL_MS,
          walSizeLimitBytes: WAL_SIZE_LIMIT_BYTES,
          checkpointHere: () => checkpoint(database),
        });
  return new ImmediateSqliteDialect({
    database: withStatementCache(database, stopCheckpoints),
  });
}

/**
 * The database file, and the `-wal` and `-shm` files beside it, readable by
 * their owner only, whoever made the folder and whatever the umask: the file
 * is created 0600 before SQLite opens it (SQLite gives the `-wal` and `-shm`
 * it creates the database file's mode), and files left by an earlier start
 * are set to 0600.
 */
function ownerOnly(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(path, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/** Copies what it can of the WAL into the database file without waiting for anyone. */
function checkpoint(database: BetterSqlite3.Database): void {
  try {
    database.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // The WAL stays longer; the next tick tries again, and a failing disk shows in the next write.
  }
}

function withStatementCache(
  database: BetterSqlite3.Database,
  onClose: () => void,
): SqliteDialectConfig['database'] {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => {
      onClose();
      database.close();
    },
    prepare(text) {
      let statement = statements.get(text);
      if (statement === undefined) {
        statement = database.prepare(text);
        if (statements.size >= STATEMENT_CACHE_SIZE) {
          const oldest = statements.keys().next();
          if (oldest.done !== true) statements.delete(oldest.value);
        }
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}
