/**
 * A pinned remote tool whose contract changed keeps the contract that was
 * last reviewed (`changed_from`: JSON of the contract, its hash and when the
 * change was first found), however the change was found (an operator's
 * refresh, `list_changed`, an expired `ttlMs`), so the review shows what
 * changed. Null while nothing waits for review. One nullable column, the same
 * on both engines. (0008: 0007 is the upstream OAuth work's.)
 */
import type { Kysely, Migration } from 'kysely';

export const remoteToolDiffMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('remote_tools').addColumn('changed_from', 'text').execute();
  },
};
