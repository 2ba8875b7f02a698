/**
 * Calls held for approval (docs/approvals.md): one row per held call, with
 * the arguments it runs with once approved and the ones approvers see
 * (write-only values masked). Not governance (no revision bump), no foreign
 * keys: a settled approval is deleted by the sweep a day after it settled.
 * The same on both engines.
 */
import type { Kysely, Migration } from 'kysely';

export const approvalsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('approvals')
      .addColumn('id', 'text', (col) => col.notNull())
      .addColumn('workspace_id', 'text', (col) => col.notNull())
      .addColumn('agent_id', 'text', (col) => col.notNull())
      .addColumn('member_id', 'text')
      .addColumn('connection_id', 'text', (col) => col.notNull())
      .addColumn('action', 'text', (col) => col.notNull())
      .addColumn('classification', 'text', (col) => col.notNull())
      .addColumn('arguments_hash', 'text', (col) => col.notNull())
      .addColumn('arguments', 'text', (col) => col.notNull())
      .addColumn('shown_arguments', 'text', (col) => col.notNull())
      .addColumn('state', 'text', (col) => col.notNull())
      .addColumn('task_ref', 'text')
      .addColumn('decided_by', 'text')
      .addColumn('decided_at', 'text')
      .addColumn('reason', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .addColumn('executed_at', 'text')
      .addPrimaryKeyConstraint('approvals_pkey', ['id'])
      .execute();
    // The Approvals page and the count in the navigation.
    await db.schema
      .createIndex('approvals_workspace_state')
      .on('approvals')
      .columns(['workspace_id', 'state', 'created_at'])
      .execute();
    // The same call made again (the agent's retry finds its approval).
    await db.schema
      .createIndex('approvals_call')
      .on('approvals')
      .columns(['agent_id', 'connection_id', 'action', 'arguments_hash'])
      .execute();
    // A held call's task, polled.
    await db.schema.createIndex('approvals_task_ref').on('approvals').column('task_ref').execute();
    // The sweep's range scan.
    await db.schema
      .createIndex('approvals_expires_at')
      .on('approvals')
      .column('expires_at')
      .execute();
  },
};
