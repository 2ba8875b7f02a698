/**
 * Enterprise identity (issue 35): the company's OpenID providers members
 * sign in through, and the identities (`iss`, `sub`) each member is known by
 * at them. An identity belongs to its member (removed with it) and outlives
 * its provider: a provider removed and added again finds the same members.
 * A member made by a sign-in is a governance change (its revision moves), as any member is. The
 * same on both engines.
 */
import type { Kysely, Migration } from 'kysely';

export const identityMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('identity_providers')
      .addColumn('id', 'text', (col) => col.notNull())
      .addColumn('workspace_id', 'text', (col) => col.notNull())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('issuer', 'text', (col) => col.notNull())
      .addColumn('client_id', 'text', (col) => col.notNull())
      .addColumn('client_secret_env', 'text', (col) => col.notNull())
      .addColumn('only', 'integer', (col) => col.notNull())
      .addColumn('name_claim', 'text', (col) => col.notNull())
      .addColumn('scopes', 'text', (col) => col.notNull())
      .addColumn('groups_claim', 'text')
      .addColumn('role', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('identity_providers_pkey', ['id'])
      .addUniqueConstraint('identity_providers_name_key', ['name'])
      .addUniqueConstraint('identity_providers_issuer_key', ['issuer'])
      .addForeignKeyConstraint(
        'identity_providers_workspace_fk',
        ['workspace_id'],
        'workspaces',
        ['id'],
        (fk) => fk.onDelete('cascade'),
      )
      .execute();
    await db.schema
      .createTable('member_identities')
      .addColumn('issuer', 'text', (col) => col.notNull())
      .addColumn('subject', 'text', (col) => col.notNull())
      .addColumn('member_id', 'text', (col) => col.notNull())
      .addColumn('provider_name', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('last_sign_in_at', 'text', (col) => col.notNull())
      // The IdP's refresh token, sealed under the master key: what `idp sync` reads the groups again with.
      .addColumn('refresh_token', 'text')
      .addPrimaryKeyConstraint('member_identities_pkey', ['issuer', 'subject'])
      .addForeignKeyConstraint(
        'member_identities_member_fk',
        ['member_id'],
        'oauth_members',
        ['id'],
        (fk) => fk.onDelete('cascade'),
      )
      .execute();
    // A group at a provider gives a role or a grant on a connection (`portcullis idp map`).
    await db.schema
      .createTable('idp_group_mappings')
      .addColumn('id', 'text', (col) => col.notNull())
      .addColumn('provider_id', 'text', (col) => col.notNull())
      .addColumn('workspace_id', 'text', (col) => col.notNull())
      .addColumn('group_name', 'text', (col) => col.notNull())
      .addColumn('role', 'text')
      .addColumn('connection_id', 'text')
      .addColumn('scope', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('idp_group_mappings_pkey', ['id'])
      .addForeignKeyConstraint(
        'idp_group_mappings_provider_fk',
        ['provider_id'],
        'identity_providers',
        ['id'],
        (fk) => fk.onDelete('cascade'),
      )
      .addForeignKeyConstraint(
        'idp_group_mappings_connection_fk',
        ['workspace_id', 'connection_id'],
        'connections',
        ['workspace_id', 'id'],
        (fk) => fk.onDelete('cascade'),
      )
      .execute();
    // What a member's groups gave them, and so take away when the group goes.
    await db.schema
      .createTable('idp_member_effects')
      .addColumn('member_id', 'text', (col) => col.notNull())
      .addColumn('kind', 'text', (col) => col.notNull())
      .addColumn('target', 'text', (col) => col.notNull())
      .addColumn('grant_id', 'text')
      .addColumn('provider_name', 'text', (col) => col.notNull())
      .addColumn('group_name', 'text', (col) => col.notNull())
      .addColumn('applied_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('idp_member_effects_pkey', ['member_id', 'kind', 'target'])
      .addForeignKeyConstraint(
        'idp_member_effects_member_fk',
        ['member_id'],
        'oauth_members',
        ['id'],
        (fk) => fk.onDelete('cascade'),
      )
      .execute();
    await db.schema
      .createIndex('member_identities_member_idx')
      .on('member_identities')
      .column('member_id')
      .execute();
  },
};
