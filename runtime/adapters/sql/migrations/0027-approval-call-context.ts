/**
 * A held call's context, kept with its approval (JSON, null for a call
 * answered no task): how the caller was authenticated (an agent key, or an
 * access token and its scopes), the wire and the client's capabilities, the
 * endpoint. With it the replica that sees the approval runs a task client's
 * approved call at once, without waiting for its next `tasks/get`
 * (docs/approvals.md). The same on both engines.
 */
import type { Kysely, Migration } from 'kysely';

export const approvalCallContextMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('approvals').addColumn('call_context', 'text').execute();
  },
};
