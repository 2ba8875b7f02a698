/**
 * A varied audit log for the activity rollup's tests: three agents, three
 * connections and none, two workspaces, latencies in many bins (and none),
 * refusals and failures, operator and system events that never count, at
 * times that cross minute, hour and day boundaries.
 */
import { LATENCY_BOUNDS_MS } from '../../runtime/core/model/audit-activity.ts';
import type { AuditEvent, NewAuditEvent } from '../../runtime/core/model/governance.ts';
import { anEvent } from './store-fixtures.ts';

const LATENCIES = [null, 0.5, 1, 1.5, 4.5, 7, 42.125, 99.9, 800, 1000.5, 60_000, 75_000];
const EDGES = [
  '2025-01-01T09:59:59.999Z',
  '2025-01-01T10:00:00.000Z',
  '2025-01-01T23:59:59.999Z',
  '2025-01-02T00:00:00.000Z',
  '2025-01-02T00:00:59.999Z',
  '2025-01-02T00:01:00.000Z',
];

export function variedAuditEvents(): NewAuditEvent[] {
  const events: NewAuditEvent[] = [];
  const start = Date.parse('2025-01-01T08:30:00.000Z');
  for (let i = 0; i < 160; i++) {
    // 7 minutes 13.5 seconds apart: some minutes share events, most hours several.
    const at = new Date(start + i * 433_500).toISOString();
    const kind = i % 11 === 0 ? 'operator' : i % 17 === 0 ? 'system' : 'agent';
    events.push(
      anEvent({
        at,
        workspaceId: i % 13 === 0 ? 'ws_2' : i % 29 === 0 ? null : 'ws_1',
        actorKind: kind,
        actorId: kind === 'agent' ? `agt_${(i % 3) + 1}` : kind === 'operator' ? 'cli' : null,
        connectionId: i % 7 === 0 ? null : `conn_${(i % 4) + 1}`,
        decision: i % 5 === 0 ? 'denied' : 'allowed',
        reason: i % 5 === 0 ? 'not_granted' : i % 6 === 0 ? 'upstream_status' : null,
        outcome: i % 5 === 0 ? null : i % 6 === 0 ? 'error' : 'ok',
        latencyMs: LATENCIES[i % LATENCIES.length] ?? null,
      }),
    );
  }
  for (const [i, at] of EDGES.entries()) {
    events.push(anEvent({ at, actorId: `agt_${(i % 3) + 1}`, latencyMs: LATENCIES[i] ?? null }));
  }
  return events;
}

export interface ActivityFilter {
  workspaceId: string;
  connectionId?: string;
  actorId?: string;
  since: string;
  until: string;
  bucketChars: 10 | 13 | 15 | 16;
}

/** The straight sum over the events themselves: what `activity` must answer. */
export function activityOfEvents(events: readonly AuditEvent[], query: ActivityFilter) {
  const sums = new Map<
    string,
    { bucket: string; bin: number; calls: number; refusals: number; errors: number }
  >();
  for (const event of events) {
    if (event.actorKind !== 'agent' || event.workspaceId !== query.workspaceId) continue;
    if (event.at < query.since || event.at >= query.until) continue;
    if (query.connectionId !== undefined && event.connectionId !== query.connectionId) continue;
    if (query.actorId !== undefined && event.actorId !== query.actorId) continue;
    const bucket = event.at.slice(0, query.bucketChars);
    const bin = binOf(event.latencyMs);
    const key = `${bucket} ${String(bin).padStart(3, '0')}`;
    const sum = sums.get(key) ?? { bucket, bin, calls: 0, refusals: 0, errors: 0 };
    sum.calls += 1;
    if (event.decision === 'denied') sum.refusals += 1;
    if (event.outcome === 'error') sum.errors += 1;
    sums.set(key, sum);
  }
  return [...sums.values()].sort((a, b) =>
    a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : a.bin - b.bin,
  );
}

/** The latency bin, counted out here rather than taken from the code under test. */
function binOf(latencyMs: number | null): number {
  if (latencyMs === null) return -1;
  let bin = 0;
  while (bin < LATENCY_BOUNDS_MS.length && latencyMs > LATENCY_BOUNDS_MS[bin]!) bin++;
  return bin;
}
