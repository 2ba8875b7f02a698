/**
 * A remote MCP connection's prompts, resources and resource templates,
 * pinned as its tools are: one `remote_features` row per item its
 * server lists, with its kind, the action its policy is kept under
 * (`prompt:<name>`, `resource:<uri>`, `template:<uriTemplate>`), what an
 * agent reads of it (JSON), its contract hash, and the contract last
 * reviewed while a change waits for review. They go with their connection.
 * The same on both engines.
 */
import type { Kysely, Migration } from 'kysely';

export const remoteFeaturePinsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('remote_features')
      .addColumn('connection_id', 'text', (col) => col.notNull())
      .addColumn('workspace_id', 'text', (col) => col.notNull())
      .addColumn('kind', 'text', (col) => col.notNull())
      .addColumn('key', 'text', (col) => col.notNull())
      .addColumn('contract', 'text', (col) => col.notNull())
      .addColumn('contract_hash', 'text', (col) => col.notNull())
      .addColumn('discovered_at', 'text', (col) => col.notNull())
      .addColumn('changed_from', 'text')
      .addPrimaryKeyConstraint('remote_features_pkey', ['connection_id', 'key'])
      .addForeignKeyConstraint(
        'remote_features_connection_fk',
        ['workspace_id', 'connection_id'],
        'connections',
        ['workspace_id', 'id'],
        (fk) => fk.onDelete('cascade'),
      )
      .execute();
  },
};
