/**
 * Keeps `audit_activity_rollup` (migration 0017) current: the audit events
 * an insert writes, summed into the rows they add to (each agent call to its
 * workspace's, connection's and agent's, by the minute and by the hour), then
 * one upsert that adds the sums. The caller runs it in the transaction of the
 * audit insert, so both land or neither does.
 *
 * The rows are summed here first because PostgreSQL refuses an upsert that
 * touches one row twice, and sorted by key so that concurrent writers lock
 * shared rows in the same order (no deadlock between replicas).
 */
import { CompiledQuery, type Insertable, type Kysely } from 'kysely';
import { latencyBin } from '../../../core/model/audit-activity.ts';
import type { NewAuditEvent } from '../../../core/model/governance.ts';
import type { AuditActivityRollupTable, Database, Engine } from '../tables/schema.ts';

type RollupRow = Insertable<AuditActivityRollupTable> & {
  calls: number;
  refusals: number;
  errors: number;
};

/** Rows per upsert: 9 values each stays far below either engine's parameter limit. */
const UPSERT_BATCH = 1000;

/** The rollup rows the events add to, with what they add, in key order. */
export function activityDeltas(events: readonly NewAuditEvent[]): RollupRow[] {
  const rows = new Map<string, RollupRow>();
  const add = (
    event: NewAuditEvent,
    workspaceId: string,
    scope: RollupRow['scope'],
    subject: string,
  ) => {
    const bin = latencyBin(event.latencyMs);
    for (const [span, chars] of [
      ['minute', 16],
      ['hour', 13],
    ] as const) {
      const bucket = event.at.slice(0, chars);
      const key = [workspaceId, scope, subject, span, bucket, bin].join('\u0000');
      let row = rows.get(key);
      if (row === undefined) {
        row = {
          workspace_id: workspaceId,
          scope,
          subject,
          span,
          bucket,
          bin,
          calls: 0,
          refusals: 0,
          errors: 0,
        };
        rows.set(key, row);
      }
      row.calls += 1;
      if (event.decision === 'denied') row.refusals += 1;
      if (event.outcome === 'error') row.errors += 1;
    }
  };
  for (const event of events) {
    if (event.actorKind !== 'agent' || event.workspaceId === null) continue;
    add(event, event.workspaceId, 'workspace', '');
    if (event.connectionId !== null)
      add(event, event.workspaceId, 'connection', event.connectionId);
    if (event.actorId !== null) add(event, event.workspaceId, 'agent', event.actorId);
  }
  return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

/** Adds the rows' counts to the rollup (new rows inserted as they are). */
export async function addActivity(
  db: Kysely<Database>,
  engine: Engine,
  rows: readonly RollupRow[],
): Promise<void> {
  for (let at = 0; at < rows.length; at += UPSERT_BATCH) {
    const batch = rows.slice(at, at + UPSERT_BATCH);
    await db.executeQuery(
      CompiledQuery.raw(
        upsertSql(engine, batch.length),
        batch.flatMap((row) => COLUMNS.map((column) => row[column])),
      ),
    );
  }
}

const COLUMNS = [
  'workspace_id',
  'scope',
  'subject',
  'span',
  'bucket',
  'bin',
  'calls',
  'refusals',
  'errors',
] as const;

/**
 * The upsert of n rows, written out (the query builder takes longer over
 * hundreds of rows than the database does): only placeholders, the values bound.
 */
function upsertSql(engine: Engine, n: number): string {
  let parameter = 0;
  const placeholder = engine === 'postgres' ? () => `$${++parameter}` : () => '?';
  const tuples = Array.from({ length: n }, () => `(${COLUMNS.map(placeholder).join(', ')})`).join(
    ', ',
  );
  return `insert into audit_activity_rollup (${COLUMNS.join(', ')}) values ${tuples}
    on conflict (workspace_id, scope, subject, span, bucket, bin) do update set
      calls = audit_activity_rollup.calls + excluded.calls,
      refusals = audit_activity_rollup.refusals + excluded.refusals,
      errors = audit_activity_rollup.errors + excluded.errors`;
}
