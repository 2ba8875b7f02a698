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
      .addPrimaryKeyConstraint('member_identities_pkey', ['issuer', 'subject'])
      .addForeignKeyConstraint(
        'member_identities_member_fk',
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
