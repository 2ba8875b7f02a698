/**
 * A remote endpoint records what its server said it serves beyond tools
 * (`features`: JSON `{ prompts, resources, completions }`) when it was
 * connected or last discovered, so an agent's handshake declares it without
 * asking the server. Null until a discovery told (rows from before this one
 * too). One nullable column, the same on both engines.
 */
import type { Kysely, Migration } from 'kysely';

export const remoteFeaturesMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('remote_endpoints').addColumn('features', 'text').execute();
  },
};
