/**
 * The activity rollup's rows of a batch of audit events, summed here from
 * the events in hand (no re-read of the rows just inserted), with the same
 * keys and sums as migration 0017's SQL (`activity-rollup-sums.ts`, which
 * the backfill still uses): an agent call of a workspace counts once for
 * the workspace (subject ''), once for its connection and once for its
 * agent, when it has them, in its hour and latency bin. `addRollup` writes
 * them with one upsert that adds the sums, in the caller's transaction.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import { LATENCY_BOUNDS_MS } from '../../../core/model/audit-activity.ts';
import type { NewAuditEvent } from '../../../core/model/governance.ts';
import { ROLLUP_ADD_ON_CONFLICT, ROLLUP_COLUMNS } from '../tables/activity-rollup-sums.ts';
import type { Database, Engine } from '../tables/schema.ts';
import { ROLLUP_BUCKET_CHARS } from '../tables/schema.ts';

type Scope = 'workspace' | 'connection' | 'agent';

export interface RollupRow {
  workspaceId: string;
  scope: Scope;
  subject: string;
  bucket: string;
  bin: number;
  calls: number;
  refusals: number;
  errors: number;
}

/** The bin of a latency: the first bound it does not exceed (-1: none), as `latencyBinSql`. */
export function latencyBin(latencyMs: number | null): number {
  if (latencyMs === null) return -1;
  for (let bin = 0; bin < LATENCY_BOUNDS_MS.length; bin++)
    if (latencyMs <= LATENCY_BOUNDS_MS[bin]!) return bin;
  return LATENCY_BOUNDS_MS.length;
}

/**
 * The rollup rows the agent calls among `events` add, one per key, in key order.
 * On every batch the gateway stores: keys are joined with a separator no id,
 * time or bin holds (NUL), not encoded, and nothing is allocated per event but
 * a key string per scope.
 */
export function rollupRowsOf(events: readonly NewAuditEvent[]): RollupRow[] {
  const rows = new Map<string, RollupRow>();
  const add = (
    workspaceId: string,
    scope: Scope,
    subject: string,
    bucket: string,
    bin: number,
    refused: number,
    failed: number,
  ) => {
    const key = `${workspaceId}\0${scope}\0${subject}\0${bucket}\0${bin}`;
    const row = rows.get(key);
    if (row === undefined) {
      rows.set(key, {
        workspaceId,
        scope,
        subject,
        bucket,
        bin,
        calls: 1,
        refusals: refused,
        errors: failed,
      });
    } else {
      row.calls += 1;
      row.refusals += refused;
      row.errors += failed;
    }
  };
  for (const event of events) {
    const workspaceId = event.workspaceId;
    if (event.actorKind !== 'agent' || workspaceId === null) continue;
    const bucket = event.at.slice(0, ROLLUP_BUCKET_CHARS);
    const bin = latencyBin(event.latencyMs);
    const refused = event.decision === 'denied' ? 1 : 0;
    const failed = event.outcome === 'error' ? 1 : 0;
    add(workspaceId, 'workspace', '', bucket, bin, refused, failed);
    if (event.connectionId !== null)
      add(workspaceId, 'connection', event.connectionId, bucket, bin, refused, failed);
    if (event.actorId !== null)
      add(workspaceId, 'agent', event.actorId, bucket, bin, refused, failed);
  }
  // One order for every writer, so concurrent upserts on PostgreSQL take row locks alike.
  return rows.size < 2 ? [...rows.values()] : [...rows.values()].sort(byKey);
}

function byKey(a: RollupRow, b: RollupRow): number {
  return (
    compare(a.workspaceId, b.workspaceId) ||
    compare(a.scope, b.scope) ||
    compare(a.subject, b.subject) ||
    compare(a.bucket, b.bucket) ||
    a.bin - b.bin
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Rollup rows per upsert: 8 parameters each stays below either engine's limit. */
const ROWS_PER_UPSERT = 2000;

/** The upsert's text by engine and row count: built once, each batch only binds its values. */
const upsertText = new Map<string, string>();

function upsertSqlFor(engine: Engine, rows: number): string {
  const key = `${engine} ${rows}`;
  let text = upsertText.get(key);
  if (text === undefined) {
    const tuples = Array.from(
      { length: rows },
      (_, r) =>
        `(${Array.from({ length: 8 }, (_, i) => (engine === 'postgres' ? `$${r * 8 + i + 1}` : '?')).join(', ')})`,
    );
    text = `insert into audit_activity_rollup (${ROLLUP_COLUMNS}) values ${tuples.join(', ')}
        ${ROLLUP_ADD_ON_CONFLICT}`;
    upsertText.set(key, text);
  }
  return text;
}

/** Adds `rows` to the rollup: one upsert (per 2000 rows) in `trx`. */
export async function addRollup(
  trx: Kysely<Database>,
  engine: Engine,
  rows: readonly RollupRow[],
): Promise<void> {
  for (let at = 0; at < rows.length; at += ROWS_PER_UPSERT) {
    const chunk = rows.slice(at, at + ROWS_PER_UPSERT);
    const values: unknown[] = [];
    for (const row of chunk)
      values.push(
        row.workspaceId,
        row.scope,
        row.subject,
        row.bucket,
        row.bin,
        row.calls,
        row.refusals,
        row.errors,
      );
    await trx.executeQuery(CompiledQuery.raw(upsertSqlFor(engine, chunk.length), values));
  }
}
