/**
 * Signing in to remote MCP servers (issue 12), for both engines:
 *
 * - `remote_endpoints.oauth`: what discovery found for an `oauth` connection
 *   (issuer, resource, scopes, the authorization server's metadata) and the
 *   per-connection switch that leaves RFC 8707 `resource` out; JSON, no secret.
 * - `upstream_oauth_clients`: the client Portcullis signs in with, one per
 *   connection, with what it is bound to (issuer, resource, callback; the
 *   workspace is the row's). Its secret, if any, is sealed.
 * - `upstream_oauth_tokens`: each credential's tokens (the shared one:
 *   `agent_id` ''; an agent's personal one), sealed, and `sign_in_required`
 *   with its reason once the server refused them. Not governance: a refresh
 *   does not move the revision.
 * - `upstream_sign_ins`: sign-ins between the link and the callback, keyed
 *   by the sha256 of their `state` (single-use, short-lived), bound to who
 *   started them (an operator or an agent), the connection, and the browser
 *   that opened the link; the PKCE verifier inside is sealed.
 *
 * All go with their connection (on delete cascade).
 */
import type { CreateTableBuilder, Kysely, Migration } from 'kysely';

/** The table's rows go with their connection (and stay in its workspace). */
function withConnection(table: string) {
  return <T extends string, C extends string>(builder: CreateTableBuilder<T, C>) =>
    builder.addForeignKeyConstraint(
      `${table}_connection_fk`,
      ['workspace_id', 'connection_id'] as C[],
      'connections',
      ['workspace_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    );
}

export const upstreamOAuthMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('remote_endpoints').addColumn('oauth', 'text').execute();
    await db.schema
      .createTable('upstream_oauth_clients')
      .addColumn('connection_id', 'text', (col) => col.notNull())
      .addColumn('workspace_id', 'text', (col) => col.notNull())
      .addColumn('issuer', 'text', (col) => col.notNull())
      .addColumn('resource', 'text', (col) => col.notNull())
      .addColumn('redirect_uri', 'text', (col) => col.notNull())
      .addColumn('client_id', 'text', (col) => col.notNull())
      .addColumn('source', 'text', (col) => col.notNull())
      .addColumn('auth_method', 'text', (col) => col.notNull())
      .addColumn('sealed_secret', 'text')
      .addColumn('key_id', 'text')
      .addColumn('obtained_at', 'text', (col) => col.notNull())
      .addColumn('secret_expires_at', 'text')
      .addPrimaryKeyConstraint('upstream_oauth_clients_pkey', ['connection_id'])
      .$call(withConnection('upstream_oauth_clients'))
      .execute();
    await db.schema
      .createTable('upstream_oauth_tokens')
      .addColumn('connection_id', 'text', (col) => col.notNull())
      .addColumn('agent_id', 'text', (col) => col.notNull())
      .addColumn('workspace_id', 'text', (col) => col.notNull())
      .addColumn('sealed', 'text')
      .addColumn('key_id', 'text')
      .addColumn('sign_in_required', 'text')
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('upstream_oauth_tokens_pkey', ['connection_id', 'agent_id'])
      .$call(withConnection('upstream_oauth_tokens'))
      .execute();
    await db.schema
      .createTable('upstream_sign_ins')
      .addColumn('state_hash', 'text', (col) => col.notNull())
      .addColumn('workspace_id', 'text', (col) => col.notNull())
      .addColumn('connection_id', 'text', (col) => col.notNull())
      .addColumn('agent_id', 'text')
      .addColumn('actor', 'text', (col) => col.notNull())
      .addColumn('browser_hash', 'text')
      .addColumn('sealed', 'text', (col) => col.notNull())
      .addColumn('key_id', 'text', (col) => col.notNull())
      .addColumn('host', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('upstream_sign_ins_pkey', ['state_hash'])
      .$call(withConnection('upstream_sign_ins'))
      .execute();
  },
};
