/**
 * The first schema. Migrations are frozen once released: they use literal
 * names and types here, never the live `schema.ts`, and a change to the
 * schema is a new migration.
 *
 * Portable on purpose: `text`, `integer` and `bigint` columns, named
 * constraints, `on delete cascade`. The engines differ in one place, the
 * audit id: SQLite's `integer primary key autoincrement` (a rowid alias that
 * is never reused) against PostgreSQL's `bigint generated always as identity`.
 *
 * Rows that belong to a connection or an agent reference it together with
 * their workspace (`(workspace_id, connection_id)` -> `connections
 * (workspace_id, id)`), so a row can never point into another workspace.
 * Foreign keys are named `<table>_<field>_fk`; the store reads the field back
 * from the name.
 */
import { type Kysely, type Migration, sql } from 'kysely';
import type { Engine } from '../tables/schema.ts';

export function initialMigration(engine: Engine): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await createWorkspaces(db);
      await createAgents(db);
      await createConnections(db);
      await createCredentials(db);
      await createGrants(db);
      await createActionPolicies(db);
      await createAuditEvents(db, engine);
      await createAdminTokens(db);
      await createSettings(db);
      await createRevision(db);
    },
  };
}

async function createWorkspaces(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('workspaces_pkey', ['id'])
    .addUniqueConstraint('workspaces_name_key', ['name'])
    .execute();
}

async function createAgents(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('agents')
    .addColumn('id', 'text', (col) => col.notNull())
    .addColumn('workspace_id', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('key_prefix', 'text', (col) => col.notNull())
    .addColumn('key_hash', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('revoked_at', 'text')
    .addPrimaryKeyConstraint('agents_pkey', ['id'])
    .addUniqueConstraint('agents_workspace_id_key', ['workspace_id', 'id'])
    .addUniqueConstraint('agents_name_key', ['workspace_id', 'name'])
    .addUniqueConstraint('agents_key_hash_key', ['key_hash'])
    .addForeignKeyConstraint('agents_workspace_fk', ['workspace_id'], 'workspaces', ['id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
}

async function createConnections(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('connections')
    .addColumn('id', 'text', (col) => col.notNull())
    .addColumn('workspace_id', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('provider', 'text', (col) => col.notNull())
    .addColumn('settings', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('health', 'text', (col) => col.notNull().defaultTo('unknown'))
    .addColumn('failure_streak', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('health_at', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('connections_pkey', ['id'])
    .addUniqueConstraint('connections_workspace_id_key', ['workspace_id', 'id'])
    .addUniqueConstraint('connections_name_key', ['workspace_id', 'name'])
    .addForeignKeyConstraint(
      'connections_workspace_fk',
      ['workspace_id'],
      'workspaces',
      ['id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
}

async function createCredentials(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('credentials')
    .addColumn('workspace_id', 'text', (col) => col.notNull())
    .addColumn('connection_id', 'text', (col) => col.notNull())
    .addColumn('agent_id', 'text')
    .addColumn('field', 'text', (col) => col.notNull())
    .addColumn('sealed', 'text', (col) => col.notNull())
    .addColumn('key_id', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addForeignKeyConstraint(
      'credentials_connection_fk',
      ['workspace_id', 'connection_id'],
      'connections',
      ['workspace_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .addForeignKeyConstraint(
      'credentials_agent_fk',
      ['workspace_id', 'agent_id'],
      'agents',
      ['workspace_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  // NULL agent_id (the shared credential) must count as one value: a plain
  // unique constraint treats NULLs as distinct on both engines.
  await db.schema
    .createIndex('credentials_field_key')
    .on('credentials')
    .unique()
    .expression(sql`connection_id, coalesce(agent_id, ''), field`)
    .execute();
}

async function createGrants(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('grants')
    .addColumn('id', 'text', (col) => col.notNull())
    .addColumn('workspace_id', 'text', (col) => col.notNull())
    .addColumn('agent_id', 'text', (col) => col.notNull())
    .addColumn('connection_id', 'text', (col) => col.notNull())
    .addColumn('scope', 'text', (col) => col.notNull())
    .addColumn('actions', 'text', (col) => col.notNull())
    .addColumn('credential_mode', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('grants_pkey', ['id'])
    .addUniqueConstraint('grants_agent_connection_key', ['agent_id', 'connection_id'])
    .addForeignKeyConstraint(
      'grants_agent_fk',
      ['workspace_id', 'agent_id'],
      'agents',
      ['workspace_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .addForeignKeyConstraint(
      'grants_connection_fk',
      ['workspace_id', 'connection_id'],
      'connections',
      ['workspace_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('grants_connection_idx')
    .on('grants')
    .columns(['workspace_id', 'connection_id'])
    .execute();
}

async function createActionPolicies(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('action_policies')
    .addColumn('connection_id', 'text', (col) => col.notNull())
    .addColumn('workspace_id', 'text', (col) => col.notNull())
    .addColumn('action', 'text', (col) => col.notNull())
    .addColumn('classification', 'text', (col) => col.notNull())
    .addColumn('state', 'text', (col) => col.notNull())
    .addColumn('reviewed_hash', 'text')
    .addColumn('current_hash', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('action_policies_pkey', ['connection_id', 'action'])
    .addForeignKeyConstraint(
      'action_policies_connection_fk',
      ['workspace_id', 'connection_id'],
      'connections',
      ['workspace_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
}

async function createAuditEvents(db: Kysely<unknown>, engine: Engine): Promise<void> {
  // No foreign keys: the log outlives the workspaces, agents and connections it names.
  await db.schema
    .createTable('audit_events')
    .addColumn('id', engine === 'postgres' ? 'bigint' : 'integer', (col) =>
      engine === 'postgres'
        ? col.primaryKey().generatedAlwaysAsIdentity()
        : col.primaryKey().autoIncrement(),
    )
    .addColumn('at', 'text', (col) => col.notNull())
    .addColumn('workspace_id', 'text')
    .addColumn('actor_kind', 'text', (col) => col.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('action', 'text', (col) => col.notNull())
    .addColumn('subject', 'text')
    .addColumn('connection_id', 'text')
    .addColumn('decision', 'text', (col) => col.notNull())
    .addColumn('reason', 'text')
    .addColumn('outcome', 'text')
    .addColumn('upstream_host', 'text')
    .addColumn('upstream_status', 'integer')
    .addColumn('latency_ms', 'double precision')
    .addColumn('request_bytes', 'integer')
    .addColumn('reply_bytes', 'integer')
    .addColumn('argument_hash', 'text')
    .execute();
  await db.schema
    .createIndex('audit_events_workspace_idx')
    .on('audit_events')
    .columns(['workspace_id', 'id'])
    .execute();
  await db.schema.createIndex('audit_events_at_idx').on('audit_events').column('at').execute();
}

async function createAdminTokens(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('admin_tokens')
    .addColumn('id', 'text', (col) => col.notNull())
    .addColumn('token_hash', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('admin_tokens_pkey', ['id'])
    .addUniqueConstraint('admin_tokens_token_hash_key', ['token_hash'])
    .execute();
}

async function createSettings(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('value', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('settings_pkey', ['key'])
    .execute();
}

async function createRevision(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('revision')
    .addColumn('id', 'integer', (col) => col.notNull())
    .addColumn('value', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('revision_pkey', ['id'])
    .execute();
  await sql`insert into revision (id, value) values (1, 0)`.execute(db);
}
