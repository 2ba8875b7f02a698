/**
 * Keeps `audit_activity_rollup` (migration 0017) current: the audit events
 * an insert writes, summed into the rows they add to (each agent call to its
 * workspace's, connection's and agent's hour), then one upsert that adds the
 * sums. The caller runs it in the transaction of the audit insert, so both
 * land or neither does.
 *
 * The rows are summed here first because PostgreSQL refuses an upsert that
 * touches one row twice, and sorted by key so that concurrent writers lock
 * shared rows in the same order (no deadlock between replicas).
 *
 * The upsert is one statement of fixed text whatever the batch (the rows
 * bound as one JSON array, read back by the engine's own JSON functions):
 * it stays prepared in the SQLite dialect's statement cache, where a text
 * per batch size would take hundreds of its places from the hot path's
 * other statements, and neither engine parses it anew.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import { latencyBin } from '../../../core/model/audit-activity.ts';
import type { NewAuditEvent } from '../../../core/model/governance.ts';
import {
  type AuditActivityRollupTable,
  type Database,
  type Engine,
  ROLLUP_BUCKET_CHARS,
} from '../tables/schema.ts';

/** One rollup row's key and what it adds, in the upsert's column order. */
export type RollupDelta = [
  workspaceId: string,
  scope: AuditActivityRollupTable['scope'],
  subject: string,
  bucket: string,
  bin: number,
  calls: number,
  refusals: number,
  errors: number,
];

/** The rollup rows the events add to, with what they add, in key order. */
export function activityDeltas(events: readonly NewAuditEvent[]): RollupDelta[] {
  const rows = new Map<string, RollupDelta>();
  const add = (
    event: NewAuditEvent,
    workspaceId: string,
    scope: RollupDelta[1],
    subject: string,
    bucket: string,
    bin: number,
  ) => {
    const key = `${workspaceId}\u0000${scope}\u0000${subject}\u0000${bucket}\u0000${bin}`;
    let row = rows.get(key);
    if (row === undefined) {
      row = [workspaceId, scope, subject, bucket, bin, 0, 0, 0];
      rows.set(key, row);
    }
    row[5] += 1;
    if (event.decision === 'denied') row[6] += 1;
    if (event.outcome === 'error') row[7] += 1;
  };
  for (const event of events) {
    if (event.actorKind !== 'agent' || event.workspaceId === null) continue;
    const bucket = event.at.slice(0, ROLLUP_BUCKET_CHARS);
    const bin = latencyBin(event.latencyMs);
    add(event, event.workspaceId, 'workspace', '', bucket, bin);
    if (event.connectionId !== null)
      add(event, event.workspaceId, 'connection', event.connectionId, bucket, bin);
    if (event.actorId !== null) add(event, event.workspaceId, 'agent', event.actorId, bucket, bin);
  }
  return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

/** Adds the rows' counts to the rollup (new rows inserted as they are): one statement. */
export async function addActivity(
  db: Kysely<Database>,
  engine: Engine,
  rows: readonly RollupDelta[],
): Promise<void> {
  await db.executeQuery(CompiledQuery.raw(UPSERT_SQL[engine], [JSON.stringify(rows)]));
}

const COLUMNS = 'workspace_id, scope, subject, bucket, bin, calls, refusals, errors';
const ON_CONFLICT = `on conflict (workspace_id, scope, subject, bucket, bin) do update set
    calls = audit_activity_rollup.calls + excluded.calls,
    refusals = audit_activity_rollup.refusals + excluded.refusals,
    errors = audit_activity_rollup.errors + excluded.errors`;

/**
 * Each engine's upsert of a JSON array of rows. SQLite's `where true` keeps
 * its parser from reading `on conflict` as a join's; PostgreSQL takes the
 * rows in the array's (key) order.
 */
const UPSERT_SQL: Record<Engine, string> = {
  sqlite: `insert into audit_activity_rollup (${COLUMNS})
    select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5,
      value ->> 6, value ->> 7
    from json_each(?) where true
    ${ON_CONFLICT}`,
  postgres: `insert into audit_activity_rollup (${COLUMNS})
    select r ->> 0, r ->> 1, r ->> 2, r ->> 3, (r ->> 4)::integer, (r ->> 5)::bigint,
      (r ->> 6)::bigint, (r ->> 7)::bigint
    from json_array_elements($1::json) with ordinality as rows (r, n)
    order by n
    ${ON_CONFLICT}`,
};
