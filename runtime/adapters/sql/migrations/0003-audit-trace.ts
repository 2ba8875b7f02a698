/**
 * The audit log records the W3C trace context an agent's request carried, so
 * a call can be found from a trace and a trace from a call. Nullable: older
 * events and requests without trace context have none.
 */
import { type Kysely, type Migration, sql } from 'kysely';

export const auditTraceMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table audit_events add column traceparent text`.execute(db);
  },
};
