/**
 * Members hold a role in their workspace (the console's `owner`, `operator`,
 * `viewer`; `member` signs in on the consent pages only): every member an
 * earlier version made is a `member`, as it was. The console reads the audit
 * log by connection (its filter, each connection's last error): an index on
 * (connection, id) keeps that a short walk at a million events. The same on
 * both engines.
 */
import type { Kysely, Migration } from 'kysely';

export const memberRolesMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('oauth_members')
      .addColumn('role', 'text', (col) => col.notNull().defaultTo('member'))
      .execute();
    await db.schema
      .createIndex('audit_events_connection_idx')
      .on('audit_events')
      .columns(['connection_id', 'id'])
      .execute();
  },
};
