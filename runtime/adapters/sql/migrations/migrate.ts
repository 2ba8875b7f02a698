/**
 * Brings a database to the latest schema. The migrations are listed here (a
 * static provider, not a folder scan) so they bundle with the runtime.
 */
import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import type { Database, Engine } from '../tables/schema.ts';
import { initialMigration } from './0001-initial.ts';
import { auditPlainRowidMigration } from './0002-audit-plain-rowid.ts';
import { auditTraceMigration } from './0003-audit-trace.ts';
import { auditUpstreamAddressMigration } from './0004-audit-upstream-address.ts';
import { oauthMigration } from './0005-oauth.ts';
import { remoteMcpMigration } from './0006-remote-mcp.ts';
import { upstreamOAuthMigration } from './0007-upstream-oauth.ts';
import { remoteToolDiffMigration } from './0008-remote-tool-diff.ts';
import { remoteFeaturesMigration } from './0009-remote-features.ts';
import { oauthClientExpiryMigration } from './0010-oauth-client-expiry.ts';
import { remoteFeaturePinsMigration } from './0011-remote-feature-pins.ts';
import { memberGrantsMigration } from './0012-member-grants.ts';
import { toolsModeMigration } from './0013-tools-mode.ts';
import { rateLimitsMigration } from './0014-rate-limits.ts';
import { memberRolesMigration } from './0015-member-roles.ts';
import { auditActivityMigration } from './0016-audit-activity.ts';
import { auditActivityRollupMigration } from './0017-audit-activity-rollup.ts';
import { auditChainMigration } from './0018-audit-chain.ts';
import { oauthClientStepUpMigration } from './0019-oauth-client-step-up.ts';
import { tasksMigration } from './0021-tasks.ts';
import { approvalsMigration } from './0022-approvals.ts';
import { identityMigration } from './0023-identity.ts';
import { machineClientsMigration } from './0025-machine-clients.ts';
import { upstreamDelegationMigration } from './0026-upstream-delegation.ts';
import { approvalCallContextMigration } from './0027-approval-call-context.ts';
import { taskFollowsMigration } from './0028-task-follows.ts';

/** kysely's default name for its record of applied migrations. */
const MIGRATION_TABLE = 'kysely_migration';

/** Every migration by name; names sort in the order they run. */
export function storeMigrations(engine: Engine): Record<string, Migration> {
  return {
    '0001-initial': initialMigration(engine),
    '0002-audit-plain-rowid': auditPlainRowidMigration(engine),
    '0003-audit-trace': auditTraceMigration,
    '0004-audit-upstream-address': auditUpstreamAddressMigration,
    '0005-oauth': oauthMigration,
    '0006-remote-mcp': remoteMcpMigration,
    '0007-upstream-oauth': upstreamOAuthMigration,
    '0008-remote-tool-diff': remoteToolDiffMigration,
    '0009-remote-features': remoteFeaturesMigration,
    '0010-oauth-client-expiry': oauthClientExpiryMigration,
    '0011-remote-feature-pins': remoteFeaturePinsMigration,
    '0012-member-grants': memberGrantsMigration,
    '0013-tools-mode': toolsModeMigration,
    '0014-rate-limits': rateLimitsMigration,
    '0015-member-roles': memberRolesMigration,
    '0016-audit-activity': auditActivityMigration,
    '0017-audit-activity-rollup': auditActivityRollupMigration(engine),
    '0018-audit-chain': auditChainMigration(engine),
    '0019-oauth-client-step-up': oauthClientStepUpMigration,
    '0021-tasks': tasksMigration,
    '0022-approvals': approvalsMigration,
    '0023-identity': identityMigration,
    '0025-machine-clients': machineClientsMigration,
    '0026-upstream-delegation': upstreamDelegationMigration,
    '0027-approval-call-context': approvalCallContextMigration,
    '0028-task-follows': taskFollowsMigration,
  };
}

export interface MigrateOptions {
  engine: Engine;
  /** PostgreSQL: the schema that holds kysely's own migration tables (the current schema). */
  migrationTableSchema?: string;
}

export async function migrateToLatest(
  db: Kysely<Database>,
  options: MigrateOptions,
): Promise<void> {
  const migrations = storeMigrations(options.engine);
  if (await hasExactly(db, Object.keys(migrations), options.migrationTableSchema)) return;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    // Numbers are handed out ahead (0019 may land after 0021): a store that ran a
    // later one still takes an earlier one it has not run.
    allowUnorderedMigrations: true,
    ...(options.migrationTableSchema === undefined
      ? {}
      : { migrationTableSchema: options.migrationTableSchema }),
  });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error;
}

/**
 * Whether the database has run exactly these migrations: one query, where the
 * migrator would first read the whole catalog. Anything else (no table yet,
 * a migration missing, one this code does not know) goes to the migrator,
 * which applies or refuses.
 */
async function hasExactly(
  db: Kysely<Database>,
  names: readonly string[],
  schema: string | undefined,
): Promise<boolean> {
  const table = schema === undefined ? sql.id(MIGRATION_TABLE) : sql.id(schema, MIGRATION_TABLE);
  let applied: string[];
  try {
    const { rows } = await sql<{ name: string }>`select name from ${table}`.execute(db);
    applied = rows.map((row) => row.name);
  } catch {
    return false;
  }
  return applied.length === names.length && names.every((name) => applied.includes(name));
}
