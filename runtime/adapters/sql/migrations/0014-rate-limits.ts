/**
 * Rate-limit overrides: the calls per minute (and burst) one agent or one
 * connection may make, instead of the configured default. One row per
 * agent or connection (exactly one of the two columns is set), gone with
 * it. The same on both engines.
 */
import { type Kysely, type Migration, sql } from 'kysely';

export const rateLimitsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('rate_limits')
      .addColumn('id', 'text', (col) => col.notNull())
      .addColumn('workspace_id', 'text', (col) => col.notNull())
      .addColumn('agent_id', 'text')
      .addColumn('connection_id', 'text')
      .addColumn('per_minute', 'integer', (col) => col.notNull())
      .addColumn('burst', 'integer', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('rate_limits_pkey', ['id'])
      .addUniqueConstraint('rate_limits_agent_key', ['agent_id'])
      .addUniqueConstraint('rate_limits_connection_key', ['connection_id'])
      .addCheckConstraint(
        'rate_limits_one_subject',
        sql`(agent_id IS NULL) <> (connection_id IS NULL)`,
      )
      .addCheckConstraint('rate_limits_positive', sql`per_minute > 0 AND burst > 0`)
      .addForeignKeyConstraint(
        'rate_limits_agent_fk',
        ['workspace_id', 'agent_id'],
        'agents',
        ['workspace_id', 'id'],
        (fk) => fk.onDelete('cascade'),
      )
      .addForeignKeyConstraint(
        'rate_limits_connection_fk',
        ['workspace_id', 'connection_id'],
        'connections',
        ['workspace_id', 'id'],
        (fk) => fk.onDelete('cascade'),
      )
      .execute();
  },
};
