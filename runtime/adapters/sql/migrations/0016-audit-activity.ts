/**
 * The console's audit reads at a million events: indexes for the filters
 * the audit page offers and the time ranges its charts sum over, each a
 * short index range instead of a walk back through the log. The same on both engines.
 */
import type { Kysely, Migration } from 'kysely';

/** Each index 0016 adds (the console benchmark drops them to measure without). */
export const AUDIT_ACTIVITY_INDEXES: ReadonlyArray<{ name: string; columns: string[] }> = [
  // The charts over a time range: the workspace's, a connection's, an agent's.
  { name: 'audit_events_workspace_at_idx', columns: ['workspace_id', 'at'] },
  { name: 'audit_events_connection_at_idx', columns: ['connection_id', 'at'] },
  { name: 'audit_events_actor_at_idx', columns: ['actor_id', 'at'] },
  // The audit page filtered by agent or by action, newest first.
  { name: 'audit_events_actor_idx', columns: ['actor_id', 'id'] },
  { name: 'audit_events_action_idx', columns: ['workspace_id', 'action', 'id'] },
];

export const auditActivityMigration: Migration = {
  async up(db: Kysely<unknown>) {
    for (const index of AUDIT_ACTIVITY_INDEXES) {
      await db.schema.createIndex(index.name).on('audit_events').columns(index.columns).execute();
    }
  },
};
