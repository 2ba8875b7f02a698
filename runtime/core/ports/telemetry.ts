/**
 * What the governed pipeline tells the metrics about each call: the port the
 * Prometheus adapter (`runtime/adapters/metrics/`) implements, with a no-op
 * for a gateway opened without one. The pipeline calls it where each call's
 * audit event is finished (`audited-call.ts`), so every kind of call is
 * counted once, by the same reason code its event records.
 *
 * Every value is bounded: a connection's name (the operator chose it), the
 * action's class, a method from a closed list, a reason code. Never a tool
 * name, an argument or anything a remote server chose.
 */
import type { Classification } from '../../../generated/catalog-format.ts';

/** One finished call, as the metrics count it. */
export interface CallRecord {
  /** The MCP method it answered (`tools/call`, `prompts/get`, ...). */
  method: CallMethod;
  /** The connection's name, when the call named one of the caller's workspace. */
  connection: string | undefined;
  /** The action's class, for a tool call that reached a tool. */
  actionClass: Classification | undefined;
  decision: 'allowed' | 'denied';
  /** `ok`, `error`, or null for a refusal. */
  outcome: 'ok' | 'error' | null;
  /** Its reason code (one of `errors.ts`); null for a call that went well. */
  reason: string | null;
  /** From its beginning to its event, in seconds. */
  seconds: number;
  /** The part spent upstream, in seconds, for a call that went there. */
  upstreamSeconds: number | undefined;
}

export const CALL_METHODS = [
  'tools/call',
  'tools/list',
  'prompts/get',
  'prompts/list',
  'resources/read',
  'resources/list',
  'resources/templates/list',
  'resources/subscribe',
  'completion/complete',
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
] as const;

export type CallMethod = (typeof CALL_METHODS)[number];

export interface CallMetrics {
  /** A call's event was finished. */
  callFinished(record: CallRecord): void;
  /** An audit event (or a group of them) was written, in seconds. */
  auditWritten(seconds: number): void;
}

export const NO_METRICS: CallMetrics = {
  callFinished() {},
  auditWritten() {},
};
