/**
 * A held call's context, kept with its approval (JSON): how the caller was
 * authenticated (an agent key, or an access token and its scopes), the wire
 * and the client's capabilities, the endpoint. With it the replica that sees
 * the approval runs the approved call at once (docs/approvals.md). And when
 * its result was given to a client that waits on its request (or calls
 * again): a call again after that is held anew. The same on both engines.
 */
import type { Kysely, Migration } from 'kysely';

export const approvalCallContextMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('approvals').addColumn('call_context', 'text').execute();
    await db.schema.alterTable('approvals').addColumn('delivered_at', 'text').execute();
  },
};
