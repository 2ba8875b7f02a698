/**
 * The latency bin of an audit event as SQL, the same on both engines:
 * `case when latency_ms is null then -1 when latency_ms <= 1 then 0 … else 28 end`,
 * the first bound of `LATENCY_BOUNDS_MS` it does not exceed. The bounds are
 * our own numbers, never input.
 */
import { type RawBuilder, sql } from 'kysely';
import { LATENCY_BOUNDS_MS } from '../../../core/model/audit-activity.ts';

/** The bin of `column` (a column reference of our own, such as `new.latency_ms`) as SQL text. */
export function latencyBinSql(column: string): string {
  return `case when ${column} is null then -1 ${LATENCY_BOUNDS_MS.map(
    (bound, bin) => `when ${column} <= ${bound} then ${bin}`,
  ).join(' ')} else ${LATENCY_BOUNDS_MS.length} end`;
}

export const LATENCY_BIN_SQL: RawBuilder<number> = sql.raw(latencyBinSql('latency_ms'));
