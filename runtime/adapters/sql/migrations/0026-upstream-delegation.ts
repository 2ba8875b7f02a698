/**
 * Acting on a member's behalf upstream (issue 35's token exchange, RFC 8693):
 * `member_identities.subject_tokens` keeps what the member's last sign-in at
 * the IdP gave (the ID token, the access token and when they expire), sealed
 * under the master key, to exchange at a remote connection's authorization
 * server; `audit_events.delegation` names whom a call forwarded that way
 * acted for (member, agent, client). Two nullable columns, the same on both
 * engines.
 */
import type { Kysely, Migration } from 'kysely';

export const upstreamDelegationMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('member_identities').addColumn('subject_tokens', 'text').execute();
    await db.schema.alterTable('audit_events').addColumn('delegation', 'text').execute();
  },
};
