/**
 * Where a call's audit event goes before its result does: the store's
 * group commit (`pipeline/audit-log.ts`) or the audit journal
 * (`adapters/journal/`). The returned promise settles once the event is as
 * durable as the writer promises (in the store, or in the journal file).
 */
import type { NewAuditEvent } from '../model/governance.ts';

export interface AuditWriter {
  /** `alone`: no other call is running, so no batch can form by waiting. */
  append(event: NewAuditEvent, options?: { alone?: boolean }): Promise<void>;
}
