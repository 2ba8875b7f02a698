/**
 * The authorization server's durable rows: members (people who sign in),
 * registered clients, consents (one per member and client, each with its
 * agent), refresh-token families and their tokens, and the signing keys.
 * Frozen once released, like every migration: literal names and types.
 *
 * Consents point at their member and at their agent within its workspace;
 * families at their consent and tokens at their family, all `on delete
 * cascade`, so removing a member removes everything it authorized.
 */
import { type Kysely, type Migration, sql } from 'kysely';

export const oauthMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('oauth_members')
      .addColumn('id', 'text', (col) => col.notNull())
      .addColumn('workspace_id', 'text', (col) => col.notNull())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('password_hash', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('oauth_members_pkey', ['id'])
      .addUniqueConstraint('oauth_members_name_key', ['name'])
      .addForeignKeyConstraint(
        'oauth_members_workspace_fk',
        ['workspace_id'],
        'workspaces',
        ['id'],
        (fk) => fk.onDelete('cascade'),
      )
      .execute();

    await db.schema
      .createTable('oauth_clients')
      .addColumn('id', 'text', (col) => col.notNull())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('redirect_uris', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('oauth_clients_pkey', ['id'])
      .execute();

    await db.schema
      .createTable('oauth_consents')
      .addColumn('id', 'text', (col) => col.notNull())
      .addColumn('workspace_id', 'text', (col) => col.notNull())
      .addColumn('member_id', 'text', (col) => col.notNull())
      .addColumn('client_id', 'text', (col) => col.notNull())
      .addColumn('client_name', 'text', (col) => col.notNull())
      .addColumn('agent_id', 'text', (col) => col.notNull())
      .addColumn('scopes', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addColumn('revoked_at', 'text')
      .addPrimaryKeyConstraint('oauth_consents_pkey', ['id'])
      .addUniqueConstraint('oauth_consents_member_client_key', ['member_id', 'client_id'])
      .addForeignKeyConstraint(
        'oauth_consents_member_fk',
        ['member_id'],
        'oauth_members',
        ['id'],
        (fk) => fk.onDelete('cascade'),
      )
      .addForeignKeyConstraint(
        'oauth_consents_agent_fk',
        ['workspace_id', 'agent_id'],
        'agents',
        ['workspace_id', 'id'],
        (fk) => fk.onDelete('cascade'),
      )
      .execute();

    await db.schema
      .createTable('oauth_token_families')
      .addColumn('id', 'text', (col) => col.notNull())
      .addColumn('consent_id', 'text', (col) => col.notNull())
      .addColumn('client_id', 'text', (col) => col.notNull())
      .addColumn('scopes', 'text', (col) => col.notNull())
      .addColumn('resource', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .addColumn('revoked_at', 'text')
      .addPrimaryKeyConstraint('oauth_token_families_pkey', ['id'])
      .addForeignKeyConstraint(
        'oauth_token_families_consent_fk',
        ['consent_id'],
        'oauth_consents',
        ['id'],
        (fk) => fk.onDelete('cascade'),
      )
      .execute();
    await sql`create index oauth_token_families_consent_idx on oauth_token_families (consent_id)`.execute(
      db,
    );

    await db.schema
      .createTable('oauth_refresh_tokens')
      .addColumn('token_hash', 'text', (col) => col.notNull())
      .addColumn('family_id', 'text', (col) => col.notNull())
      .addColumn('scopes', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('oauth_refresh_tokens_pkey', ['token_hash'])
      .addForeignKeyConstraint(
        'oauth_refresh_tokens_family_fk',
        ['family_id'],
        'oauth_token_families',
        ['id'],
        (fk) => fk.onDelete('cascade'),
      )
      .execute();
    await sql`create index oauth_refresh_tokens_family_idx on oauth_refresh_tokens (family_id)`.execute(
      db,
    );

    await db.schema
      .createTable('oauth_signing_keys')
      .addColumn('kid', 'text', (col) => col.notNull())
      .addColumn('alg', 'text', (col) => col.notNull())
      .addColumn('public_jwk', 'text', (col) => col.notNull())
      .addColumn('sealed_private', 'text', (col) => col.notNull())
      .addColumn('key_id', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('retired_at', 'text')
      .addPrimaryKeyConstraint('oauth_signing_keys_pkey', ['kid'])
      .execute();
  },
};
