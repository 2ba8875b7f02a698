/**
 * The group commit's hash chain (issue 33: `audit verify` true by default),
 * on SQLite and PostgreSQL, through the real store:
 * - the calls' events written by the gateway's group commit (two replicas'
 *   logs on one store, and events written one at a time beside them) verify
 *   intact, every one checked;
 * - a row edited or deleted behind the gateway's back is named as the first
 *   break;
 * - a batch the store refuses is never linked to: the next one chains on
 *   from the hash before it, so the log still verifies.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../../runtime/adapters/sql/open-store.ts';
import { verifyAuditChain } from '../../../../runtime/core/operator/audit-verify.ts';
import { AuditLog } from '../../../../runtime/core/pipeline/audit-log.ts';
import type { Store } from '../../../../runtime/core/ports/store.ts';
import { variedAuditEvents } from '../../../support/activity-events.ts';
import { testSchemas } from '../../../support/postgres.ts';

const schemas = testSchemas();
const now = () => new Date();
const afterThis: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const done of afterThis) await done();
  await schemas.dropAll();
});

const ENGINES: Array<[string, () => Promise<string>]> = [
  ['SQLite', async () => join(mkdtempSync(join(tmpdir(), 'portcullis-chain-')), 'store.db')],
  ['PostgreSQL', async () => schemas.urlFor(await schemas.create())],
];

async function openAt(location: string): Promise<Store> {
  const store = await openStore(
    location.startsWith('postgres') ? { databaseUrl: location } : { sqliteFile: location },
  );
  afterThis.unshift(() => store.close());
  return store;
}

/** The database itself, for a change made behind the gateway's back. */
function rawDb(location: string): Kysely<unknown> {
  const db = new Kysely<unknown>({
    dialect: location.startsWith('postgres')
      ? new PostgresDialect({ pool: new pg.Pool({ connectionString: location, max: 1 }) })
      : new SqliteDialect({ database: new BetterSqlite3(location) }),
  });
  afterThis.push(() => db.destroy());
  return db;
}

describe.each(ENGINES)('the group commit chain on %s', (_engine, location) => {
  it('chains every event of two replicas and of the one-at-a-time writers, intact', async () => {
    const where = await location();
    const store = await openAt(where);
    const replicas = [new AuditLog(store), new AuditLog(await openAt(where))];
    const events = variedAuditEvents();
    // Calls finishing together (batches form), the two replicas and single events interleaved.
    await Promise.all(
      events.map((event, i) =>
        i % 10 === 9 ? store.audit.append(event) : replicas[i % 2]!.append(event),
      ),
    );
    const report = await verifyAuditChain({ store, now }, {});
    expect(report).toMatchObject({ checked: events.length, unchained: 0, firstBreak: undefined });
    expect(report.head).toEqual(await store.audit.head());
    expect(await store.audit.query({ limit: 10_000 })).toHaveLength(events.length);
  });

  it('names the first event an edit or a deletion breaks', async () => {
    const where = await location();
    const store = await openAt(where);
    const log = new AuditLog(store);
    const events = variedAuditEvents().slice(0, 60);
    // Three batches of twenty, as three turns of calls finishing together.
    for (let at = 0; at < events.length; at += 20)
      await Promise.all(events.slice(at, at + 20).map((event) => log.append(event)));
    const ids = (await store.audit.query({ ascending: true })).map((e) => e.id);
    expect((await verifyAuditChain({ store, now }, {})).firstBreak).toBeUndefined();

    const db = rawDb(where);
    await sql`update audit_events set outcome = 'ok', reason = null where id = ${ids[40]}`.execute(
      db,
    );
    expect((await verifyAuditChain({ store, now }, {})).firstBreak).toEqual({
      id: ids[40],
      problem: 'hash',
    });
    await sql`delete from audit_events where id = ${ids[25]}`.execute(db);
    expect((await verifyAuditChain({ store, now }, {})).firstBreak).toEqual({
      id: ids[26],
      problem: 'link',
    });
  });

  it('never links to a batch the store refused', async () => {
    const where = await location();
    const store = await openAt(where);
    let refuse = false;
    const refusing: Store = {
      ...store,
      audit: {
        ...store.audit,
        appendChained: (records, fold) => {
          if (!refuse) return store.audit.appendChained(records, fold);
          refuse = false;
          return Promise.reject(new Error('the store is down'));
        },
      },
    };
    const log = new AuditLog(refusing);
    const events = variedAuditEvents().slice(0, 30);
    await Promise.all(events.slice(0, 10).map((event) => log.append(event)));
    refuse = true;
    const refused = await Promise.allSettled(events.slice(10, 20).map((e) => log.append(e)));
    expect(refused.every((r) => r.status === 'rejected')).toBe(true);
    await Promise.all(events.slice(20).map((event) => log.append(event)));
    expect(await verifyAuditChain({ store, now }, {})).toMatchObject({
      checked: 20,
      unchained: 0,
      firstBreak: undefined,
    });
  });
});
