/**
 * What the console's audit reads cost an audit write (for bench:console):
 * the same agent calls written through the store to three fresh SQLite
 * files, the log alone (migration 0016's indexes and 0017's rollup trigger
 * dropped), the log with 0016's indexes (main before the rollup), and the
 * store as it is (the indexes and the rollup, kept by 0017's trigger in the
 * same statement). One call a write (a call alone) and 100 a write (group
 * commit), each written as the gateway's audit log writes it
 * (`appendMany`), the variants interleaved round after round; the median
 * per call, its ratio to the log alone, and the range of that ratio over
 * the rounds (each round's variants measured side by side).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, sql } from 'kysely';
import { AUDIT_ACTIVITY_INDEXES } from '../../runtime/adapters/sql/migrations/0016-audit-activity.ts';
import { migrateToLatest } from '../../runtime/adapters/sql/migrations/migrate.ts';
import { openStore } from '../../runtime/adapters/sql/open-store.ts';
import { sqliteDialect } from '../../runtime/adapters/sql/sqlite-dialect.ts';
import type { Database } from '../../runtime/adapters/sql/tables/schema.ts';
import type { NewAuditEvent } from '../../runtime/core/model/governance.ts';
import { markdownTable } from './bench-table.ts';

const ROUNDS = 15;
const SINGLES = 300;
const BATCHES = 10;
const BATCH = 100;

interface Writer {
  name: string;
  write(events: NewAuditEvent[]): Promise<void>;
  close(): Promise<void>;
}

export async function measureAuditWrites(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-bench-audit-writes-'));
  try {
    const writers = [
      await aStore(join(dir, 'log.db'), { indexes: false, rollup: false }),
      await aStore(join(dir, 'indexed.db'), { indexes: true, rollup: false }),
      await aStore(join(dir, 'store.db'), { indexes: true, rollup: true }),
    ];
    const perCall = writers.map(() => ({ one: [] as number[], many: [] as number[] }));
    let clock = Date.UTC(2026, 11, 1);
    const events = (n: number) =>
      Array.from({ length: n }, () => {
        clock += 997;
        return anEvent(clock);
      });
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, writer] of writers.entries()) {
        const singles = events(SINGLES);
        let started = performance.now();
        for (const event of singles) await writer.write([event]);
        perCall[i]!.one.push((performance.now() - started) / SINGLES);
        const batches = Array.from({ length: BATCHES }, () => events(BATCH));
        started = performance.now();
        for (const batch of batches) await writer.write(batch);
        perCall[i]!.many.push((performance.now() - started) / (BATCHES * BATCH));
      }
    }
    for (const writer of writers) await writer.close();
    const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
    const ratio = (i: number, kind: 'one' | 'many') => {
      const ratios = perCall[i]![kind].map((ms, round) => ms / perCall[0]![kind][round]!);
      const median_ = median(perCall[i]![kind]) / median(perCall[0]![kind]);
      return `${median_.toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
    };
    return markdownTable(
      ['audit write', 'a call alone', '× (rounds)', '100 calls a write', '× (rounds)'],
      writers.map((writer, i) => [
        writer.name,
        us(median(perCall[i]!.one)),
        ratio(i, 'one'),
        us(median(perCall[i]!.many)),
        ratio(i, 'many'),
      ]),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The store on a migrated file, without 0016's indexes or 0017's trigger if so asked. */
async function aStore(
  sqliteFile: string,
  { indexes, rollup }: { indexes: boolean; rollup: boolean },
): Promise<Writer> {
  const db = new Kysely<Database>({ dialect: sqliteDialect(sqliteFile) });
  await migrateToLatest(db, { engine: 'sqlite' });
  if (!indexes) {
    for (const index of AUDIT_ACTIVITY_INDEXES) await db.schema.dropIndex(index.name).execute();
  }
  // Since migration 0018 the store sums the rollup in each insert, with no trigger to drop:
  // the "without the rollup" rows write the rollup too (issue 33), until this bench is reshaped.
  if (!rollup) await sql`drop trigger if exists audit_activity_rollup_add`.execute(db);
  await db.destroy();
  const store = await openStore({ sqliteFile });
  return {
    name: rollup
      ? 'log + 0016 indexes + 0017 rollup (this branch)'
      : indexes
        ? 'log + 0016 indexes (main)'
        : 'log alone',
    write: (events) => store.audit.appendMany(events),
    close: () => store.close(),
  };
}

let random = 7;
const next = () => {
  random = (random * 1_103_515_245 + 12_345) % 2_147_483_648;
  return random / 2_147_483_648;
};

function anEvent(at: number): NewAuditEvent {
  const roll = next();
  return {
    at: new Date(at).toISOString(),
    workspaceId: 'ws_bench',
    actorKind: 'agent',
    actorId: `agt_${Math.floor(next() * 20)}`,
    action: 'unikraft_list_instances',
    subject: null,
    connectionId: `conn_${Math.floor(next() * 50)}`,
    decision: roll < 0.05 ? 'denied' : 'allowed',
    reason: roll < 0.05 ? 'grant_missing' : null,
    outcome: roll < 0.05 ? null : roll < 0.07 ? 'error' : 'ok',
    upstreamHost: 'api.example.test',
    upstreamAddress: null,
    upstreamStatus: 200,
    latencyMs: Math.round(3 + Math.exp(next() * 8) * 10) / 10,
    requestBytes: 120,
    replyBytes: 2048,
    argumentHash: null,
    traceparent: null,
    via: null,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
