/**
 * What the console's audit reads cost an audit write (for bench:console):
 * the same agent calls written to three fresh SQLite stores, the log alone
 * (migration 0016's indexes dropped), the log with 0016's indexes, and the
 * store as it writes (0016's indexes and the activity rollup of 0017, in one
 * transaction). One call a write (a call alone) and 100 a write (group
 * commit), the variants interleaved round after round; the median per call
 * and its ratio to the log alone, measured in the same run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompiledQuery, Kysely } from 'kysely';
import { AUDIT_ACTIVITY_INDEXES } from '../../runtime/adapters/sql/migrations/0016-audit-activity.ts';
import { migrateToLatest } from '../../runtime/adapters/sql/migrations/migrate.ts';
import { openStore } from '../../runtime/adapters/sql/open-store.ts';
import { sqliteDialect } from '../../runtime/adapters/sql/sqlite-dialect.ts';
import type { Database } from '../../runtime/adapters/sql/tables/schema.ts';
import type { NewAuditEvent } from '../../runtime/core/model/governance.ts';
import { markdownTable } from './bench-table.ts';

const ROUNDS = 7;
const SINGLES = 300;
const BATCHES = 10;
const BATCH = 100;

interface Writer {
  name: string;
  one(event: NewAuditEvent): Promise<void>;
  many(events: NewAuditEvent[]): Promise<void>;
  close(): Promise<void>;
}

export async function measureAuditWrites(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-bench-audit-writes-'));
  try {
    const writers = [
      await logOnly(join(dir, 'log.db'), { indexes: false }),
      await logOnly(join(dir, 'indexed.db'), { indexes: true }),
      await asStored(join(dir, 'store.db')),
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
        for (const event of singles) await writer.one(event);
        perCall[i]!.one.push((performance.now() - started) / SINGLES);
        const batches = Array.from({ length: BATCHES }, () => events(BATCH));
        started = performance.now();
        for (const batch of batches) await writer.many(batch);
        perCall[i]!.many.push((performance.now() - started) / (BATCHES * BATCH));
      }
    }
    for (const writer of writers) await writer.close();
    const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
    const base = { one: median(perCall[0]!.one), many: median(perCall[0]!.many) };
    return markdownTable(
      ['audit write', 'a call alone', '×', '100 calls a write', '×'],
      writers.map((writer, i) => {
        const one = median(perCall[i]!.one);
        const many = median(perCall[i]!.many);
        return [
          writer.name,
          us(one),
          `${(one / base.one).toFixed(2)}×`,
          us(many),
          `${(many / base.many).toFixed(2)}×`,
        ];
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The audit insert alone, as the store words it, into a migrated file. */
async function logOnly(file: string, { indexes }: { indexes: boolean }): Promise<Writer> {
  const db = new Kysely<Database>({ dialect: sqliteDialect(file) });
  await migrateToLatest(db, { engine: 'sqlite' });
  if (!indexes) {
    for (const index of AUDIT_ACTIVITY_INDEXES) await db.schema.dropIndex(index.name).execute();
  }
  const texts = new Map<number, string>();
  const insert = async (events: NewAuditEvent[]) => {
    let text = texts.get(events.length);
    if (text === undefined) {
      text = db.insertInto('audit_events').values(events.map(toRow)).compile().sql;
      texts.set(events.length, text);
    }
    await db.executeQuery(
      CompiledQuery.raw(
        text,
        events.flatMap((e) => Object.values(toRow(e))),
      ),
    );
  };
  return {
    name: indexes ? 'log + 0016 indexes' : 'log alone',
    one: async (event) => {
      await db
        .insertInto('audit_events')
        .values(toRow(event))
        .returning('id')
        .executeTakeFirstOrThrow();
    },
    many: insert,
    close: () => db.destroy(),
  };
}

async function asStored(sqliteFile: string): Promise<Writer> {
  const store = await openStore({ sqliteFile });
  return {
    name: 'log + 0016 indexes + 0017 rollup (the store)',
    one: async (event) => {
      await store.audit.append(event);
    },
    many: (events) => store.audit.appendMany(events),
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

function toRow(event: NewAuditEvent) {
  return {
    at: event.at,
    workspace_id: event.workspaceId,
    actor_kind: event.actorKind,
    actor_id: event.actorId,
    action: event.action,
    subject: event.subject,
    connection_id: event.connectionId,
    decision: event.decision,
    reason: event.reason,
    outcome: event.outcome,
    upstream_host: event.upstreamHost,
    upstream_address: event.upstreamAddress,
    upstream_status: event.upstreamStatus,
    latency_ms: event.latencyMs,
    request_bytes: event.requestBytes,
    reply_bytes: event.replyBytes,
    argument_hash: event.argumentHash,
    traceparent: event.traceparent,
    via: event.via,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
