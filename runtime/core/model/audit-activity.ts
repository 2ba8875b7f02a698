/**
 * The audit log summed over time for the console's charts: agents' calls per
 * time bucket, how many were refused or failed, and their latencies as a
 * histogram of fixed bins (so any engine sums them without a percentile
 * function, and a bucket's p50/p95 is read from its bins).
 */

/**
 * The upper bounds of the latency bins, in milliseconds, about 1.5× apart;
 * one more bin holds everything above the last bound.
 */
export const LATENCY_BOUNDS_MS = [
  1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 700, 1000, 1500, 2000, 3000, 5000,
  7000, 10000, 15000, 20000, 30000, 60000,
] as const;

/**
 * How many characters of an ISO timestamp (`2026-01-31T09:41:07.123Z`) a
 * bucket keeps: 16 a minute, 15 ten minutes, 13 an hour, 10 a day.
 */
export type BucketChars = 10 | 13 | 15 | 16;

export interface AuditActivityQuery {
  workspaceId: string;
  connectionId?: string;
  /** An agent's id: its calls only. */
  actorId?: string;
  /** Inclusive lower, exclusive upper ISO time bounds. */
  since: string;
  until: string;
  bucketChars: BucketChars;
}

/** One bucket's agent calls in one latency bin (`bin` -1: calls without a latency). */
export interface AuditActivityRow {
  /** The bucket: the first `bucketChars` characters of its events' timestamps. */
  bucket: string;
  bin: number;
  calls: number;
  /** Refused (decision `denied`). */
  refusals: number;
  /** Allowed, then failed (outcome `error`). */
  errors: number;
}
