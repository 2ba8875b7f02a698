/** One audit event with every field stated: what the caller names, null for the rest. */
import type { NewAuditEvent } from '../model/governance.ts';

export function auditEvent(
  fields: Pick<NewAuditEvent, 'at' | 'actorKind' | 'action' | 'decision'> & Partial<NewAuditEvent>,
): NewAuditEvent {
  return {
    workspaceId: null,
    actorId: null,
    subject: null,
    connectionId: null,
    reason: null,
    outcome: null,
    upstreamHost: null,
    upstreamAddress: null,
    upstreamStatus: null,
    latencyMs: null,
    requestBytes: null,
    replyBytes: null,
    argumentHash: null,
    traceparent: null,
    via: null,
    ...fields,
  };
}
