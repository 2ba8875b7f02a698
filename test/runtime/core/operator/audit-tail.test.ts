/**
 * The live tail never skips an event whose id became visible after a larger
 * one (PostgreSQL: two transactions, the later id committed first), and its
 * cursor moves on once events have settled, past rows no filter matched too.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../../runtime/adapters/sql/open-store.ts';
import { SETTLE_MS, tailAudit } from '../../../../runtime/core/operator/audit-tail.ts';
import type { OperatorContext } from '../../../../runtime/core/operator/context.ts';
import type { Store } from '../../../../runtime/core/ports/store.ts';
import { testSchemas } from '../../../support/postgres.ts';
import { anEvent, aWorkspace } from '../../../support/store-fixtures.ts';

const schemas = testSchemas();
afterAll(() => schemas.dropAll());

/** The tail as the console reads it: each read from the last cursor, ids already shown skipped. */
function aReader(store: Store, clock: { now: number }) {
  const ctx = { store, now: () => new Date(clock.now) } as unknown as OperatorContext;
  let cursor: number | undefined;
  const shown = new Set<number>();
  return async (filters: Record<string, string> = {}): Promise<number[]> => {
    const tail = await tailAudit(ctx, {
      workspace: 'default',
      ...filters,
      ...(cursor === undefined ? {} : { afterId: cursor }),
    });
    expect(tail.cursor).toBeGreaterThanOrEqual(cursor ?? 0);
    cursor = tail.cursor;
    const fresh = tail.events.map((event) => event.id).filter((id) => !shown.has(id));
    for (const id of fresh) shown.add(id);
    return fresh;
  };
}

describe('the audit tail', () => {
  it('shows an event committed after a larger id was already read (PostgreSQL)', async () => {
    const databaseUrl = schemas.urlFor(await schemas.create());
    const store = await openStore({ databaseUrl });
    const first = new pg.Client({ connectionString: databaseUrl });
    const second = new pg.Client({ connectionString: databaseUrl });
    await Promise.all([first.connect(), second.connect()]);
    try {
      await store.workspaces.create(aWorkspace());
      const clock = { now: Date.parse('2026-12-03T08:00:00.000Z') };
      const read = aReader(store, clock);
      expect(await read()).toEqual([]);
      const insert = (client: pg.Client) =>
        client
          .query<{ id: string }>(
            `insert into audit_events (at, workspace_id, actor_kind, action, decision)
             values ($1, 'ws_1', 'system', 'test.tail', 'allowed') returning id`,
            [new Date(clock.now).toISOString()],
          )
          .then((result) => Number(result.rows[0]?.id));
      await first.query('begin');
      const earlier = await insert(first);
      await second.query('begin');
      const later = await insert(second);
      expect(later).toBeGreaterThan(earlier);
      await second.query('commit');
      clock.now += 1_000;
      expect(await read()).toEqual([later]);
      await first.query('commit');
      clock.now += 1_000;
      expect(await read()).toEqual([earlier]);
      clock.now += SETTLE_MS;
      expect(await read()).toEqual([]);
    } finally {
      await Promise.all([first.end(), second.end()]);
      await store.close();
    }
  });

  it.each([
    [
      'SQLite',
      async () =>
        openStore({
          sqliteFile: join(mkdtempSync(join(tmpdir(), 'portcullis-tail-')), 'store.db'),
        }),
    ],
    ['PostgreSQL', async () => openStore({ databaseUrl: schemas.urlFor(await schemas.create()) })],
  ])('moves its cursor past settled events, matched or not (%s)', async (_, open) => {
    const store = await open();
    try {
      await store.workspaces.create(aWorkspace());
      const clock = { now: Date.parse('2026-12-03T08:00:00.000Z') };
      const at = () => new Date(clock.now).toISOString();
      const read = aReader(store, clock);
      const rare = { action: 'test.rare' };
      expect(await read(rare)).toEqual([]);
      await store.audit.appendMany([
        anEvent({ at: at() }),
        anEvent({ at: at(), action: 'test.rare' }),
      ]);
      const rareId = (await store.audit.query({ action: 'test.rare' }))[0]?.id;
      expect(await read(rare)).toEqual([rareId]);
      // Still fresh: read again (the reader skips it), the cursor not past it.
      expect(await read(rare)).toEqual([]);
      clock.now += SETTLE_MS + 1;
      await store.audit.append(anEvent({ at: at() }));
      expect(await read(rare)).toEqual([]);
      const ctx = { store, now: () => new Date(clock.now) } as unknown as OperatorContext;
      const settled = await tailAudit(ctx, { workspace: 'default', ...rare, afterId: 0 });
      expect(settled.events.map((event) => event.id)).toEqual([rareId]);
      expect(settled.cursor).toBe(rareId);
    } finally {
      await store.close();
    }
  });
});
