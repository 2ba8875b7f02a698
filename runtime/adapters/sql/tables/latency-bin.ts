/**
 * The latency bin of an audit event as SQL, the same on both engines:
 * `case when latency_ms is null then -1 when latency_ms <= 1 then 0 … else 28 end`,
 * matching `latencyBin` in core/model. The bounds are our own numbers, never input.
 */
import { type RawBuilder, sql } from 'kysely';
import { LATENCY_BOUNDS_MS } from '../../../core/model/audit-activity.ts';

export const LATENCY_BIN_SQL: RawBuilder<number> = sql.raw(
  `case when latency_ms is null then -1 ${LATENCY_BOUNDS_MS.map(
    (bound, bin) => `when latency_ms <= ${bound} then ${bin}`,
  ).join(' ')} else ${LATENCY_BOUNDS_MS.length} end`,
);
