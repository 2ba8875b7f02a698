/**
 * The audit log records, beside the catalog's host (`upstream_host`), the
 * address a call actually went to when a development override sent it
 * elsewhere (`upstream_address`, e.g. `http://127.0.0.1:4010`); null
 * otherwise. One nullable column, the same on both engines. (0004: the MCP
 * 2026-07-28 work on main adds 0003, the audit's trace columns.)
 */
import type { Kysely, Migration } from 'kysely';

export const auditUpstreamAddressMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('audit_events').addColumn('upstream_address', 'text').execute();
  },
};
