/**
 * Registered clients expire (see `ClientRows.prune`): each registration
 * deletes those no one approved within a day, and those whose every consent
 * was revoked long ago, unless a live token family still names them. The
 * prune asks, per client, for its consents and token families: these indexes
 * answer that without reading either table whole. The same on both engines.
 */
import type { Kysely, Migration } from 'kysely';

export const oauthClientExpiryMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('oauth_consents_client_idx')
      .on('oauth_consents')
      .column('client_id')
      .execute();
    await db.schema
      .createIndex('oauth_token_families_client_idx')
      .on('oauth_token_families')
      .column('client_id')
      .execute();
    await db.schema
      .createIndex('oauth_clients_created_idx')
      .on('oauth_clients')
      .column('created_at')
      .execute();
  },
};
