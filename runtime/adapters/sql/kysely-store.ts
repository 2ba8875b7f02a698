/**
 * The `Store` over kysely, for both engines. A store is bound either to the
 * database or to one open transaction; `transaction()` on a bound store runs
 * the work in the same transaction, under a savepoint: work that throws
 * undoes its own writes, and the outer work may catch the error and go on.
 *
 * The revision is one counter row. A governance mutation bumps it first and
 * then writes, in one transaction: on PostgreSQL concurrent governance
 * transactions then queue on that row before they take any other lock, so
 * they cannot deadlock with each other.
 */
import { type CompiledQuery, type Kysely, sql } from 'kysely';
import type {
  AdminTokenRows,
  AgentRows,
  ApprovalRows,
  AuditRows,
  ConnectionRows,
  CredentialRows,
  GrantRows,
  IdentityRows,
  MemberGrantRows,
  OAuthRows,
  PolicyRows,
  RateLimitRows,
  RemoteEndpointRows,
  RemoteFeatureRows,
  RemoteToolRows,
  SettingRows,
  Store,
  TaskRows,
  UpstreamOAuthRows,
  WorkspaceRows,
} from '../../core/ports/store.ts';
import { adminTokenRows } from './rows/admin-token-rows.ts';
import { agentRows } from './rows/agent-rows.ts';
import { approvalRows } from './rows/approval-rows.ts';
import { auditRows } from './rows/audit-rows.ts';
import { connectionRows } from './rows/connection-rows.ts';
import { credentialRows } from './rows/credential-rows.ts';
import { grantRows } from './rows/grant-rows.ts';
import { identityRows } from './rows/identity-rows.ts';
import { memberGrantRows } from './rows/member-grant-rows.ts';
import { oauthRows } from './rows/oauth-rows.ts';
import { policyRows } from './rows/policy-rows.ts';
import { rateLimitRows } from './rows/rate-limit-rows.ts';
import { remoteEndpointRows, remoteFeatureRows, remoteToolRows } from './rows/remote-rows.ts';
import { settingRows } from './rows/setting-rows.ts';
import type { StoreContext } from './rows/store-context.ts';
import { taskRows } from './rows/task-rows.ts';
import { upstreamOAuthRows } from './rows/upstream-oauth-rows.ts';
import { workspaceRows } from './rows/workspace-rows.ts';
import { constraintError, type Reference } from './tables/constraint-errors.ts';
import type { Database, Engine } from './tables/schema.ts';

export class KyselyStore implements Store {
  readonly workspaces: WorkspaceRows;
  readonly agents: AgentRows;
  readonly connections: ConnectionRows;
  readonly credentials: CredentialRows;
  readonly grants: GrantRows;
  readonly memberGrants: MemberGrantRows;
  readonly rateLimits: RateLimitRows;
  readonly policies: PolicyRows;
  readonly audit: AuditRows;
  readonly adminTokens: AdminTokenRows;
  readonly settings: SettingRows;
  readonly oauth: OAuthRows;
  readonly remoteEndpoints: RemoteEndpointRows;
  readonly remoteTools: RemoteToolRows;
  readonly remoteFeatures: RemoteFeatureRows;
  readonly upstreamOAuth: UpstreamOAuthRows;
  readonly tasks: TaskRows;
  readonly identity: IdentityRows;
  readonly approvals: ApprovalRows;

  readonly #db: Kysely<Database>;
  readonly #engine: Engine;
  readonly #inTransaction: boolean;
  #savepoints = 0;
  #revisionQuery: CompiledQuery<{ value: number | string }> | undefined;

  constructor(db: Kysely<Database>, engine: Engine, inTransaction = false) {
    this.#db = db;
    this.#engine = engine;
    this.#inTransaction = inTransaction;
    const context: StoreContext = {
      engine,
      db,
      mutate: (work, references) => this.#mutate(work, references ?? []),
      atomically: (work) => (inTransaction ? work(db) : db.transaction().execute(work)),
    };
    this.workspaces = workspaceRows(context);
    this.agents = agentRows(context);
    this.connections = connectionRows(context);
    this.credentials = credentialRows(context);
    this.grants = grantRows(context);
    this.memberGrants = memberGrantRows(context);
    this.rateLimits = rateLimitRows(context);
    this.policies = policyRows(context);
    this.audit = auditRows(context);
    this.adminTokens = adminTokenRows(context);
    this.settings = settingRows(context);
    this.oauth = oauthRows(context);
    this.remoteEndpoints = remoteEndpointRows(context);
    this.remoteTools = remoteToolRows(context);
    this.remoteFeatures = remoteFeatureRows(context);
    this.upstreamOAuth = upstreamOAuthRows(context);
    this.tasks = taskRows(context);
    this.identity = identityRows(context);
    this.approvals = approvalRows(context);
  }

  async transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    if (!this.#inTransaction)
      return this.#db
        .transaction()
        .execute((trx) => work(new KyselyStore(trx, this.#engine, true)));
    const savepoint = sql.raw(`portcullis_work_${++this.#savepoints}`);
    await sql`savepoint ${savepoint}`.execute(this.#db);
    try {
      const result = await work(this);
      await sql`release savepoint ${savepoint}`.execute(this.#db);
      return result;
    } catch (error) {
      try {
        await sql`rollback to savepoint ${savepoint}`.execute(this.#db);
        await sql`release savepoint ${savepoint}`.execute(this.#db);
      } catch {
        // The transaction is lost anyway (a dropped connection): the work's error says why.
      }
      throw error;
    }
  }

  /** On every call's path: compiled once, run as is (no query building per call). */
  async revision(): Promise<number> {
    this.#revisionQuery ??= this.#db
      .selectFrom('revision')
      .select('value')
      .where('id', '=', 1)
      .compile();
    const { rows } = await this.#db.executeQuery(this.#revisionQuery);
    const row = rows[0];
    if (!row) throw new Error('the revision row is missing: the store was not migrated');
    return Number(row.value);
  }

  async close(): Promise<void> {
    if (this.#inTransaction) throw new TypeError('close the store, not a transaction');
    await this.#db.destroy();
  }

  async #mutate<T>(
    work: (db: Kysely<Database>) => Promise<T>,
    references: readonly Reference[],
  ): Promise<T> {
    if (!this.#inTransaction) {
      return this.#db.transaction().execute(async (trx) => {
        try {
          await bumpRevision(trx);
          return await work(trx);
        } catch (error) {
          throw await constraintError(error, trx, this.#engine, references);
        }
      });
    }
    // Inside the caller's transaction, a savepoint undoes just this write when
    // it fails, so the caller may catch the error and go on (PostgreSQL would
    // otherwise abort the whole transaction).
    const savepoint = sql.raw(`portcullis_write_${++this.#savepoints}`);
    await sql`savepoint ${savepoint}`.execute(this.#db);
    try {
      await bumpRevision(this.#db);
      const result = await work(this.#db);
      await sql`release savepoint ${savepoint}`.execute(this.#db);
      return result;
    } catch (error) {
      await sql`rollback to savepoint ${savepoint}`.execute(this.#db);
      await sql`release savepoint ${savepoint}`.execute(this.#db);
      throw await constraintError(error, this.#db, this.#engine, references);
    }
  }
}

async function bumpRevision(db: Kysely<Database>): Promise<void> {
  await db
    .updateTable('revision')
    .set({ value: sql<number>`value + 1` })
    .where('id', '=', 1)
    .execute();
}
