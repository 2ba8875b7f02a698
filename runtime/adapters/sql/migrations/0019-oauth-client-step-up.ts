/**
 * A registered OAuth client's step-up form, as an operator chose it (`http`
 * or `result`); null, for every client an earlier version registered: the
 * form follows its redirect URIs (ChatGPT's take the result form). The same
 * on both engines.
 */
import type { Kysely, Migration } from 'kysely';

export const oauthClientStepUpMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('oauth_clients').addColumn('step_up', 'text').execute();
  },
};
