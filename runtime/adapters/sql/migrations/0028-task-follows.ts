/**
 * A recorded task that follows another (JSON-free, the client's id of it):
 * a held call's task whose approved run started a remote server's task, so
 * the held task's `tasks/*` requests are answered by the remote one from
 * then on (docs/approvals.md). The same on both engines.
 */
import type { Kysely, Migration } from 'kysely';

export const taskFollowsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('tasks').addColumn('follows', 'text').execute();
  },
};
