/**
 * The activity rollup's sums as SQL (migration 0017's shape): the rows an
 * audit log's agent calls add, one pass over a table of events, and the
 * upsert that adds them. The backfill, and since migration 0018 every audit
 * write of the store, use these same expressions, so the charts' answers
 * do not depend on which path summed an event.
 */
import { latencyBinSql } from './latency-bin.ts';
import { ROLLUP_BUCKET_CHARS } from './schema.ts';

export const ROLLUP_COLUMNS = 'workspace_id, scope, subject, bucket, bin, calls, refusals, errors';
export const ROLLUP_ADD_ON_CONFLICT = `on conflict (workspace_id, scope, subject, bucket, bin) do update set
    calls = audit_activity_rollup.calls + excluded.calls,
    refusals = audit_activity_rollup.refusals + excluded.refusals,
    errors = audit_activity_rollup.errors + excluded.errors`;

/** Each scope and its subject column (none: the whole workspace, subject ''). */
export const SCOPES = [
  ['workspace', null],
  ['connection', 'connection_id'],
  ['agent', 'actor_id'],
] as const;

/** An event's bucket, bin, refusal and failure, its columns read through `ref`. */
export function figures(ref: (column: string) => string) {
  return {
    bucket: `substr(${ref('at')}, 1, ${ROLLUP_BUCKET_CHARS})`,
    bin: latencyBinSql(ref('latency_ms')),
    refused: `case when ${ref('decision')} = 'denied' then 1 else 0 end`,
    failed: `case when ${ref('outcome')} = 'error' then 1 else 0 end`,
  };
}

/**
 * The rollup rows of the agent calls in `source` (a table): one pass over it,
 * each call taken once per scope, grouped (a call without a connection or
 * an agent counts for the workspace only).
 */
export function sumsOf(source: string): string {
  const { bucket, bin, refused, failed } = figures((column) => column);
  const scopes = SCOPES.map(([scope]) => `select '${scope}' as scope`).join(' union all ');
  const subject = `case scope ${SCOPES.map(
    ([scope, column]) => `when '${scope}' then ${column ?? "''"}`,
  ).join(' ')} end`;
  return `select workspace_id, scope, ${subject}, ${bucket}, ${bin},
      count(*), sum(${refused}), sum(${failed})
    from ${source} cross join (${scopes}) as scopes
    where actor_kind = 'agent' and workspace_id is not null and ${subject} is not null
    group by workspace_id, scope, ${subject}, ${bucket}, ${bin}`;
}
