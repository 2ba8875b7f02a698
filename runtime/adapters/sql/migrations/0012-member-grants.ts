/**
 * Members hold grants as agents do (`portcullis grant --member ada …`), and
 * an agent a consent made acts for its member: `agents.member_id` names that
 * member (null for an operator's agent), filled here for the agents earlier
 * consents made, and `member_grants` holds one grant per member and
 * connection, gone with either. The same on both engines.
 */
import { type Kysely, type Migration, sql } from 'kysely';

export const memberGrantsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('agents').addColumn('member_id', 'text').execute();
    await sql`UPDATE agents SET member_id = (
        SELECT oauth_consents.member_id FROM oauth_consents WHERE oauth_consents.agent_id = agents.id
      ) WHERE member_id IS NULL`.execute(db);
    await db.schema
      .createTable('member_grants')
      .addColumn('id', 'text', (col) => col.notNull())
      .addColumn('workspace_id', 'text', (col) => col.notNull())
      .addColumn('member_id', 'text', (col) => col.notNull())
      .addColumn('connection_id', 'text', (col) => col.notNull())
      .addColumn('scope', 'text', (col) => col.notNull())
      .addColumn('actions', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('member_grants_pkey', ['id'])
      .addUniqueConstraint('member_grants_member_connection_key', ['member_id', 'connection_id'])
      .addForeignKeyConstraint(
        'member_grants_member_fk',
        ['member_id'],
        'oauth_members',
        ['id'],
        (fk) => fk.onDelete('cascade'),
      )
      .addForeignKeyConstraint(
        'member_grants_connection_fk',
        ['workspace_id', 'connection_id'],
        'connections',
        ['workspace_id', 'id'],
        (fk) => fk.onDelete('cascade'),
      )
      .execute();
    await db.schema
      .createIndex('member_grants_connection_idx')
      .on('member_grants')
      .columns(['workspace_id', 'connection_id'])
      .execute();
  },
};
