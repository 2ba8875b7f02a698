/**
 * Tasks of the tasks extension that an in-process producer works on (a call
 * held for approval): their status, and the result or error they came to,
 * so that any replica answers `tasks/get` and a restart loses none. Not
 * governance (no revision bump) and not tied to its agent or connection by a
 * foreign key: a task outlives neither its `expires_at`, after which the
 * sweep deletes it. A remote server's task needs no row (its id is sealed
 * around what reaching it again takes). The same on both engines.
 */
import type { Kysely, Migration } from 'kysely';

export const tasksMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('tasks')
      .addColumn('ref', 'text', (col) => col.notNull())
      .addColumn('purpose', 'text', (col) => col.notNull())
      .addColumn('workspace_id', 'text', (col) => col.notNull())
      .addColumn('agent_id', 'text', (col) => col.notNull())
      .addColumn('connection_id', 'text', (col) => col.notNull())
      .addColumn('action', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('status_message', 'text')
      .addColumn('result', 'text')
      .addColumn('error', 'text')
      .addColumn('input_requests', 'text')
      .addColumn('poll_interval_ms', 'integer')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('last_updated_at', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('tasks_pkey', ['ref'])
      .execute();
    // The sweep's range scan.
    await db.schema.createIndex('tasks_expires_at').on('tasks').column('expires_at').execute();
  },
};
