/**
 * Remote MCP connections (0006; 0005 is the authorization server's): one
 * `remote_endpoints` row per connection whose provider is `remote-mcp` (the
 * address, the transport and revision found, the auth kind and header names,
 * the server's info, whether it is still a draft, the operator's
 * classification overrides, when its tool list goes stale), and the tool list pinned
 * at its last discovery in `remote_tools`, one row per upstream tool with its
 * contract and contract hash. Both go with their connection.
 */
import type { Kysely, Migration } from 'kysely';

export const remoteMcpMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('remote_endpoints')
      .addColumn('connection_id', 'text', (col) => col.notNull())
      .addColumn('workspace_id', 'text', (col) => col.notNull())
      .addColumn('url', 'text', (col) => col.notNull())
      .addColumn('transport', 'text')
      .addColumn('revision', 'text')
      .addColumn('auth_kind', 'text', (col) => col.notNull())
      .addColumn('header_names', 'text', (col) => col.notNull())
      .addColumn('server_info', 'text')
      .addColumn('draft', 'text')
      .addColumn('classification_overrides', 'text', (col) => col.notNull())
      .addColumn('tools_expire_at', 'text')
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('remote_endpoints_pkey', ['connection_id'])
      .addForeignKeyConstraint(
        'remote_endpoints_connection_fk',
        ['workspace_id', 'connection_id'],
        'connections',
        ['workspace_id', 'id'],
        (fk) => fk.onDelete('cascade'),
      )
      .execute();
    await db.schema
      .createTable('remote_tools')
      .addColumn('connection_id', 'text', (col) => col.notNull())
      .addColumn('workspace_id', 'text', (col) => col.notNull())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('contract', 'text', (col) => col.notNull())
      .addColumn('contract_hash', 'text', (col) => col.notNull())
      .addColumn('classification', 'text', (col) => col.notNull())
      .addColumn('classification_rule', 'text', (col) => col.notNull())
      .addColumn('discovered_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('remote_tools_pkey', ['connection_id', 'name'])
      .addForeignKeyConstraint(
        'remote_tools_connection_fk',
        ['workspace_id', 'connection_id'],
        'connections',
        ['workspace_id', 'id'],
        (fk) => fk.onDelete('cascade'),
      )
      .execute();
  },
};
