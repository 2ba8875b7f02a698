/**
 * Discovery: how an agent is served its tools. `workspaces.tools_mode` is the
 * workspace's default (`direct` for every workspace that exists), and
 * `agents.tools_mode` an agent's own (null follows the workspace's, as a
 * member's OAuth client does). `audit_events.via` says how a call reached
 * the action it names (`discovery` for `call_action`; null for a direct
 * call). Three nullable or defaulted columns, the same on both engines.
 */
import type { Kysely, Migration } from 'kysely';

export const toolsModeMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('workspaces')
      .addColumn('tools_mode', 'text', (col) => col.notNull().defaultTo('direct'))
      .execute();
    await db.schema.alterTable('agents').addColumn('tools_mode', 'text').execute();
    await db.schema.alterTable('audit_events').addColumn('via', 'text').execute();
  },
};
