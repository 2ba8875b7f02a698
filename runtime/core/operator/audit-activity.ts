/**
 * The workspace's activity over a time range, for the console's charts:
 * agents' calls, refusals and failures per time bucket, with each bucket's
 * p50 and p95 latency, for the whole workspace, one connection or one agent.
 * The store sums (`AuditRows.activity`); this fills the empty buckets and
 * reads the percentiles from the latency bins (linear within a bin, so a
 * figure is within a bin's width, about 1.5×, of the exact one).
 */
import { z } from 'zod';
import {
  type AuditActivityRow,
  type BucketChars,
  LATENCY_BOUNDS_MS,
} from '../model/audit-activity.ts';
import { agentOrThrow } from './agents.ts';
import { connectionOrThrow } from './connection-lookup.ts';
import { type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';

/** Each range a chart may show, with its bucket: 24 to 168 points, never thousands. */
export const ACTIVITY_RANGES = {
  '1h': { ms: 3_600_000, bucketMs: 60_000, chars: 16 },
  '6h': { ms: 21_600_000, bucketMs: 600_000, chars: 15 },
  '24h': { ms: 86_400_000, bucketMs: 600_000, chars: 15 },
  '7d': { ms: 604_800_000, bucketMs: 3_600_000, chars: 13 },
  '30d': { ms: 2_592_000_000, bucketMs: 86_400_000, chars: 10 },
} as const satisfies Record<string, { ms: number; bucketMs: number; chars: BucketChars }>;

export const AuditActivitySchema = z.strictObject({
  workspace: z.string().min(1),
  connection: z.string().min(1).optional(),
  agent: z.string().min(1).optional(),
  range: z.enum(Object.keys(ACTIVITY_RANGES) as [keyof typeof ACTIVITY_RANGES]).default('24h'),
});

export interface ActivityFigures {
  calls: number;
  refusals: number;
  errors: number;
  /** Milliseconds; null without a timed call. */
  p50Ms: number | null;
  p95Ms: number | null;
}

export interface ActivityPoint extends ActivityFigures {
  /** The bucket's start (ISO). */
  at: string;
}

export interface AuditActivity {
  range: keyof typeof ACTIVITY_RANGES;
  bucketSeconds: number;
  since: string;
  until: string;
  points: ActivityPoint[];
  totals: ActivityFigures;
}

export async function auditActivity(ctx: OperatorContext, input: unknown): Promise<AuditActivity> {
  const q = parseInput(AuditActivitySchema, input);
  const workspace = await workspaceOrThrow(ctx, q.workspace);
  const connectionId = q.connection
    ? (await connectionOrThrow(ctx, workspace.id, q.connection)).id
    : undefined;
  const actorId = q.agent ? (await agentOrThrow(ctx, workspace.id, q.agent)).id : undefined;
  const range = ACTIVITY_RANGES[q.range];
  const now = ctx.now().getTime();
  // The last bucket is the one now falls in; the first starts `range` before its end.
  const lastStart = Math.floor(now / range.bucketMs) * range.bucketMs;
  const count = Math.round(range.ms / range.bucketMs);
  const firstStart = lastStart - (count - 1) * range.bucketMs;
  const since = new Date(firstStart).toISOString();
  const until = new Date(lastStart + range.bucketMs).toISOString();
  const rows = await ctx.store.audit.activity({
    workspaceId: workspace.id,
    ...(connectionId ? { connectionId } : {}),
    ...(actorId ? { actorId } : {}),
    since,
    until,
    bucketChars: range.chars,
  });
  const byBucket = new Map<string, AuditActivityRow[]>();
  for (const row of rows) byBucket.set(row.bucket, [...(byBucket.get(row.bucket) ?? []), row]);
  const points = Array.from({ length: count }, (_, i) => {
    const at = new Date(firstStart + i * range.bucketMs).toISOString();
    return { at, ...figuresOf(byBucket.get(at.slice(0, range.chars)) ?? []) };
  });
  return {
    range: q.range,
    bucketSeconds: range.bucketMs / 1000,
    since,
    until,
    points,
    totals: figuresOf(rows),
  };
}

function figuresOf(rows: readonly AuditActivityRow[]): ActivityFigures {
  const bins = new Array<number>(LATENCY_BOUNDS_MS.length + 1).fill(0);
  let calls = 0;
  let refusals = 0;
  let errors = 0;
  for (const row of rows) {
    calls += row.calls;
    refusals += row.refusals;
    errors += row.errors;
    if (row.bin >= 0 && row.bin < bins.length) bins[row.bin] = (bins[row.bin] ?? 0) + row.calls;
  }
  return {
    calls,
    refusals,
    errors,
    p50Ms: percentile(bins, 0.5),
    p95Ms: percentile(bins, 0.95),
  };
}

/** The `q` quantile of a latency histogram, linear within its bin; the open last bin gives its lower bound. */
export function percentile(bins: readonly number[], q: number): number | null {
  const total = bins.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (const [bin, n] of bins.entries()) {
    if (n > 0 && below + n >= rank) {
      const lower = bin === 0 ? 0 : LATENCY_BOUNDS_MS[bin - 1]!;
      const upper = LATENCY_BOUNDS_MS[bin];
      if (upper === undefined) return lower;
      return Math.round((lower + ((upper - lower) * (rank - below)) / n) * 100) / 100;
    }
    below += n;
  }
  return null;
}
