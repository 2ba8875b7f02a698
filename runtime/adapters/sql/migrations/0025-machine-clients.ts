/**
 * Machine clients and enterprise-managed authorization (issue 35):
 *
 * - `oauth_machine_clients`: a client an operator registered for the
 *   `client_credentials` grant, authenticating with a secret (kept as its
 *   sha256) or with keys at its JWKS URL (`private_key_jwt`). It acts as an
 *   agent of its own and is named as it (the agent's name is unique in its
 *   workspace), removed with it (`on delete cascade`).
 * - `oauth_assertion_jtis`: the `jti` of every JWT presented to the token
 *   endpoint (client assertions, ID-JAGs) until it expires, so a replay is
 *   refused on every replica when no Redis is configured.
 * - `identity_providers.id_jag`: 1 when the provider is trusted to issue
 *   ID-JAGs (the JWT bearer grant).
 *
 * The same on both engines.
 */
import type { Kysely, Migration } from 'kysely';

export const machineClientsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('oauth_machine_clients')
      .addColumn('id', 'text', (col) => col.notNull())
      .addColumn('workspace_id', 'text', (col) => col.notNull())
      .addColumn('agent_id', 'text', (col) => col.notNull())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('auth_method', 'text', (col) => col.notNull())
      .addColumn('secret_hash', 'text')
      .addColumn('jwks_uri', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('oauth_machine_clients_pkey', ['id'])
      .addForeignKeyConstraint(
        'oauth_machine_clients_agent_fk',
        ['workspace_id', 'agent_id'],
        'agents',
        ['workspace_id', 'id'],
        (fk) => fk.onDelete('cascade'),
      )
      .execute();
    await db.schema
      .createTable('oauth_assertion_jtis')
      .addColumn('jti_key', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('oauth_assertion_jtis_pkey', ['jti_key'])
      .execute();
    await db.schema
      .createIndex('oauth_assertion_jtis_expires_idx')
      .on('oauth_assertion_jtis')
      .column('expires_at')
      .execute();
    await db.schema
      .alterTable('identity_providers')
      .addColumn('id_jag', 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
  },
};
