/**
 * Time spent inside SQLite statements, by statement: better-sqlite3's
 * `run`, `get`, `all` and `iterate` timed where the process makes them (the
 * store keeps prepared statements, so every call of a query goes through one
 * Statement object). For a benchmark child only: it changes a prototype.
 */
import BetterSqlite3 from 'better-sqlite3';

export interface StatementTime {
  /** The statement's SQL, shortened. */
  sql: string;
  count: number;
  totalUs: number;
}

const METHODS = ['run', 'get', 'all', 'iterate'] as const;

/** Starts timing every statement of this process; `take` answers what was timed since the last take. */
export function timeStatements(): { take(): StatementTime[] } {
  let times = new Map<string, StatementTime>();
  const probe = new BetterSqlite3(':memory:');
  const prototype = Object.getPrototypeOf(probe.prepare('select 1')) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  probe.close();
  for (const method of METHODS) {
    const original = prototype[method]!;
    prototype[method] = function timed(this: { source: string }, ...args: unknown[]) {
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const sql = this.source.replace(/\s+/g, ' ').slice(0, 48);
        let time = times.get(sql);
        if (time === undefined) {
          time = { sql, count: 0, totalUs: 0 };
          times.set(sql, time);
        }
        time.count++;
        time.totalUs += (performance.now() - started) * 1000;
      }
    };
  }
  return {
    take() {
      const taken = [...times.values()].sort((a, b) => b.totalUs - a.totalUs);
      times = new Map();
      return taken;
    },
  };
}
