/**
 * The audit journal (issue 33), on SQLite and PostgreSQL:
 * - every event appended is in the store once the journal drains, with its
 *   agent calls in the activity rollup exactly as the log sums them;
 * - a process killed by SIGKILL after its appends, before any fold, loses
 *   none: the next journal opened on its folder folds them, once;
 * - `verify` finds the chain intact, then names the first event that a
 *   change in the store (an event edited, an event deleted) breaks;
 * - the lines of calls that end in one turn are written together, each
 *   call's append settling only once its line is in the file; a call alone
 *   is written at once;
 * - an event the store writes itself (an operator's, in its transaction)
 *   beside the journal's keeps the order they happened in, and the next
 *   call's event chains on from it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { AuditJournal } from '../../../../runtime/adapters/journal/audit-journal.ts';
import { openStore } from '../../../../runtime/adapters/sql/open-store.ts';
import { journalOrderedStore } from '../../../../runtime/compose/journal-ordered-store.ts';
import { verifyAuditChain } from '../../../../runtime/core/operator/audit-verify.ts';
import type { Store } from '../../../../runtime/core/ports/store.ts';
import { activityOfEvents, variedAuditEvents } from '../../../support/activity-events.ts';
import { testSchemas } from '../../../support/postgres.ts';

const schemas = testSchemas();
const now = () => new Date();
const afterThis: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const done of afterThis) await done();
  await schemas.dropAll();
});

const ENGINES: Array<[string, () => Promise<string>]> = [
  ['SQLite', async () => join(mkdtempSync(join(tmpdir(), 'portcullis-journal-')), 'store.db')],
  ['PostgreSQL', async () => schemas.urlFor(await schemas.create())],
];

function open(location: string): Promise<Store> {
  return openStore(
    location.startsWith('postgres') ? { databaseUrl: location } : { sqliteFile: location },
  );
}

const killedWriter = join(import.meta.dirname, '../../../support/journal/killed-writer.ts');

async function withStore<T>(location: string, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await open(location);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** The database itself, for a change made behind the gateway's back. */
function rawDb(location: string): Kysely<unknown> {
  return new Kysely({
    dialect: location.startsWith('postgres')
      ? new PostgresDialect({ pool: new pg.Pool({ connectionString: location, max: 1 }) })
      : new SqliteDialect({ database: new BetterSqlite3(location) }),
  });
}

describe.each(ENGINES)('the audit journal on %s', (_engine, location) => {
  it('stores every event appended, its agent calls in the activity sums', async () => {
    const where = await location();
    const folder = mkdtempSync(join(tmpdir(), 'portcullis-journal-'));
    await withStore(where, async (store) => {
      const journal = await AuditJournal.open({ folder, store });
      const events = variedAuditEvents();
      for (const event of events) await journal.append(event);
      await journal.drain();
      const stored = await store.audit.query({ ascending: true, limit: 10_000 });
      expect(stored.map(({ id: _id, ...event }) => event)).toEqual(events);
      const query = {
        workspaceId: 'ws_1',
        since: '2025-01-01T00:00:00.000Z',
        until: '2025-01-03T00:00:00.000Z',
        bucketChars: 13 as const,
      };
      expect(await store.audit.activity(query)).toEqual(activityOfEvents(stored, query));
      await journal.close();
      expect(readdirSync(folder)).toEqual([]);
    });
  });

  it('folds, at the next open, what a process killed by SIGKILL had appended', async () => {
    const where = await location();
    const folder = mkdtempSync(join(tmpdir(), 'portcullis-journal-'));
    // The schema is made before the writer runs, as a gateway's first start makes it.
    await withStore(where, async () => {});
    const run = promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', killedWriter, where, folder, '120'],
      { cwd: process.cwd() },
    );
    const failure = await run.then(
      () => undefined,
      (error: { signal?: string; stdout?: string }) => error,
    );
    expect(failure?.signal).toBe('SIGKILL');
    expect(failure?.stdout).toBe('appended\n');
    expect(readdirSync(folder)).toHaveLength(1);
    await withStore(where, async (store) => {
      expect(await store.audit.query({ limit: 10_000 })).toHaveLength(0);
      const journal = await AuditJournal.open({ folder, store });
      expect(readdirSync(folder)).toEqual([]);
      const stored = await store.audit.query({ ascending: true, limit: 10_000 });
      expect(stored.map(({ id: _id, ...event }) => event)).toEqual(
        variedAuditEvents().slice(0, 120),
      );
      expect((await verifyAuditChain({ store, now }, {})).firstBreak).toBeUndefined();
      await journal.close();
    });
  });

  it('counts events stored without a hash (appendMany, as before the chain) as unchained, never as a break', async () => {
    const where = await location();
    const folder = mkdtempSync(join(tmpdir(), 'portcullis-journal-'));
    await withStore(where, async (store) => {
      const events = variedAuditEvents();
      await store.audit.appendMany(events.slice(0, 20));
      const journal = await AuditJournal.open({ folder, store });
      for (const event of events.slice(20, 30)) await journal.append(event);
      await journal.close();
      await store.audit.appendMany(events.slice(30, 45));
      expect(await verifyAuditChain({ store, now }, {})).toMatchObject({
        checked: 10,
        unchained: 35,
        firstBreak: undefined,
      });
    });
  });

  it('verifies the chain, and names the first event an edit or a deletion breaks', async () => {
    const where = await location();
    const folder = mkdtempSync(join(tmpdir(), 'portcullis-journal-'));
    await withStore(where, async (store) => {
      const journal = await AuditJournal.open({ folder, store });
      for (const event of variedAuditEvents().slice(0, 50)) await journal.append(event);
      await journal.close();
      const ids = (await store.audit.query({ ascending: true })).map((e) => e.id);
      const intact = await verifyAuditChain({ store, now }, {});
      expect(intact).toMatchObject({ checked: 50, unchained: 0, firstBreak: undefined });
      expect(intact.head).toEqual(await store.audit.head());
      const head = intact.head!.hash;
      expect((await verifyAuditChain({ store, now }, { head })).firstBreak).toBeUndefined();

      const db = rawDb(where);
      afterThis.push(() => db.destroy());
      // The newest events removed: the rest still chains, the head kept elsewhere does not.
      await sql`delete from audit_events where id >= ${ids[45]}`.execute(db);
      expect((await verifyAuditChain({ store, now }, {})).firstBreak).toBeUndefined();
      expect((await verifyAuditChain({ store, now }, { head })).firstBreak).toEqual({
        id: 0,
        problem: 'head',
      });
      await sql`update audit_events set outcome = 'ok' where id = ${ids[30]}`.execute(db);
      expect((await verifyAuditChain({ store, now }, {})).firstBreak).toEqual({
        id: ids[30],
        problem: 'hash',
      });
      await sql`update audit_events set reason = 'hidden' where id = ${ids[12]}`.execute(db);
      expect((await verifyAuditChain({ store, now }, {})).firstBreak).toEqual({
        id: ids[12],
        problem: 'hash',
      });
      await sql`delete from audit_events where id = ${ids[5]}`.execute(db);
      expect((await verifyAuditChain({ store, now }, {})).firstBreak).toEqual({
        id: ids[6],
        problem: 'link',
      });
      // A window after the breaks checks only its own events and their links.
      const since = (await store.audit.query({ ascending: true })).at(-10)!.at;
      expect((await verifyAuditChain({ store, now }, { since })).firstBreak).toBeUndefined();
    });
  });

  it("keeps a write of the store's own in order between the calls' events, and chains on from it", async () => {
    const where = await location();
    const folder = mkdtempSync(join(tmpdir(), 'portcullis-journal-'));
    await withStore(where, async (raw) => {
      const journal = await AuditJournal.open({ folder, store: raw });
      const store = journalOrderedStore(raw, {
        drain: () => AuditJournal.drainHere(),
        beside: (write) => journal.beside(write),
      });
      const [call1, call2, call3] = variedAuditEvents().filter((e) => e.actorKind === 'agent');
      const operator = { ...call1!, actorKind: 'operator' as const, action: 'policy.set' };
      await journal.append(call1!);
      await store.audit.append(operator);
      await journal.append(call2!);
      await store.transaction((tx) => tx.audit.append({ ...operator, action: 'grant.create' }));
      await journal.append(call3!);
      await journal.close();
      const links = await store.audit.chain({ limit: 10 });
      expect(links.map((link) => link.event.action)).toEqual([
        call1!.action,
        'policy.set',
        call2!.action,
        'grant.create',
        call3!.action,
      ]);
      // Each link names the one before it: none forks off an older event.
      for (let i = 1; i < links.length; i++) expect(links[i]!.prevHash).toBe(links[i - 1]!.hash);
      expect(await verifyAuditChain({ store, now }, {})).toMatchObject({
        checked: 5,
        firstBreak: undefined,
      });
      // The operator's event removed: the call after it no longer links.
      const db = rawDb(where);
      afterThis.push(() => db.destroy());
      await sql`delete from audit_events where id = ${links[1]!.id}`.execute(db);
      expect((await verifyAuditChain({ store, now }, {})).firstBreak).toEqual({
        id: links[2]!.id,
        problem: 'link',
      });
    });
  });

  it('writes the lines of one turn together, each append settling once its line is in the file', async () => {
    const where = await location();
    const folder = mkdtempSync(join(tmpdir(), 'portcullis-journal-'));
    await withStore(where, async (store) => {
      const journal = await AuditJournal.open({ folder, store });
      const lines = () => {
        const [file] = readdirSync(folder);
        return file === undefined ? [] : readFileSync(join(folder, file), 'utf8').split('\n');
      };
      const [first, second, third] = variedAuditEvents();
      // Alone: in the file before append returns.
      const alone = journal.append(first!, { alone: true });
      expect(lines()).toHaveLength(2);
      await alone;
      let settled = 0;
      const together = [second!, third!].map((event) =>
        journal.append(event).then(() => {
          settled += 1;
        }),
      );
      // Not yet written, so not yet settled: no call's result can have gone back.
      expect([lines().length, settled]).toEqual([2, 0]);
      await Promise.all(together);
      const written = lines();
      expect(written).toHaveLength(4);
      const chain = written.slice(0, 3).map((line) => JSON.parse(line) as { p: string; h: string });
      expect(chain[1]!.p).toBe(chain[0]!.h);
      expect(chain[2]!.p).toBe(chain[1]!.h);
      await journal.close();
      expect((await store.audit.query({ ascending: true })).map((e) => e.action)).toEqual(
        [first, second, third].map((e) => e!.action),
      );
    });
  });
});
