/**
 * Signing in to remote MCP servers (0007): the client of each connection,
 * each credential's sealed tokens and sign-in state, and the sign-ins
 * between their link and the callback. None of it is governance (a refresh
 * must not move the revision every replica watches), so every write is
 * `atomically`.
 */
import type { Selectable } from 'kysely';
import type {
  ClientSource,
  SignInReason,
  StoredClient,
  StoredSignIn,
  StoredTokens,
  TokenEndpointAuthMethod,
} from '../../../core/model/sign-in.ts';
import type {
  UpstreamClientRows,
  UpstreamOAuthRows,
  UpstreamSignInRows,
  UpstreamTokenRows,
} from '../../../core/ports/store.ts';
import type {
  UpstreamOAuthClientTable,
  UpstreamOAuthTokenTable,
  UpstreamSignInTable,
} from '../tables/schema.ts';
import { sortedBy } from './order.ts';
import type { StoreContext } from './store-context.ts';

export function upstreamOAuthRows(context: StoreContext): UpstreamOAuthRows {
  return {
    clients: clientRows(context),
    tokens: tokenRows(context),
    signIns: signInRows(context),
  };
}

function clientRows(context: StoreContext): UpstreamClientRows {
  const { db } = context;
  return {
    async put(client) {
      const values = {
        issuer: client.binding.issuer,
        resource: client.binding.resource,
        redirect_uri: client.binding.redirectUri,
        client_id: client.clientId,
        source: client.source,
        auth_method: client.authMethod,
        sealed_secret: client.sealedSecret,
        key_id: client.keyId,
        obtained_at: client.obtainedAt,
        secret_expires_at: client.secretExpiresAt,
      };
      await context.atomically((trx) =>
        trx
          .insertInto('upstream_oauth_clients')
          .values({
            connection_id: client.connectionId,
            workspace_id: client.workspaceId,
            ...values,
          })
          .onConflict((conflict) => conflict.column('connection_id').doUpdateSet(values))
          .execute(),
      );
    },
    async byConnection(connectionId) {
      const row = await db
        .selectFrom('upstream_oauth_clients')
        .selectAll()
        .where('connection_id', '=', connectionId)
        .executeTakeFirst();
      return row && toClient(row);
    },
    async remove(connectionId) {
      const result = await context.atomically((trx) =>
        trx
          .deleteFrom('upstream_oauth_clients')
          .where('connection_id', '=', connectionId)
          .executeTakeFirst(),
      );
      return Number(result.numDeletedRows) > 0;
    },
    async sealed() {
      const rows = await db
        .selectFrom('upstream_oauth_clients')
        .selectAll()
        .where('sealed_secret', 'is not', null)
        .execute();
      return sortedBy(rows, (row) => row.connection_id).map(toClient);
    },
    async reseal(connectionId, from, to) {
      const result = await context.atomically((trx) =>
        trx
          .updateTable('upstream_oauth_clients')
          .set({ sealed_secret: to.sealed, key_id: to.keyId })
          .where('connection_id', '=', connectionId)
          .where('sealed_secret', '=', from)
          .executeTakeFirst(),
      );
      return Number(result.numUpdatedRows) > 0;
    },
  };
}

function tokenRows(context: StoreContext): UpstreamTokenRows {
  const { db } = context;
  /** The token sets still sealed, of one workspace or of every one, in a stable order. */
  const sealedTokens = async (workspaceId?: string): Promise<StoredTokens[]> => {
    let query = db.selectFrom('upstream_oauth_tokens').selectAll().where('sealed', 'is not', null);
    if (workspaceId !== undefined) query = query.where('workspace_id', '=', workspaceId);
    const rows = await query.execute();
    return sortedBy(
      rows,
      (row) => row.connection_id,
      (row) => row.agent_id,
    ).map(toTokens);
  };
  return {
    async put(tokens) {
      const values = {
        sealed: tokens.sealed,
        key_id: tokens.keyId,
        sign_in_required: tokens.signInRequired,
        updated_at: tokens.updatedAt,
      };
      await context.atomically((trx) =>
        trx
          .insertInto('upstream_oauth_tokens')
          .values({
            connection_id: tokens.connectionId,
            agent_id: tokens.agentId ?? '',
            workspace_id: tokens.workspaceId,
            ...values,
          })
          .onConflict((conflict) =>
            conflict.columns(['connection_id', 'agent_id']).doUpdateSet(values),
          )
          .execute(),
      );
    },
    async get(connectionId, agentId) {
      const row = await db
        .selectFrom('upstream_oauth_tokens')
        .selectAll()
        .where('connection_id', '=', connectionId)
        .where('agent_id', '=', agentId ?? '')
        .executeTakeFirst();
      return row && toTokens(row);
    },
    async forConnection(connectionId) {
      const rows = await db
        .selectFrom('upstream_oauth_tokens')
        .selectAll()
        .where('connection_id', '=', connectionId)
        .execute();
      return rows
        .sort((a, b) => (a.agent_id < b.agent_id ? -1 : a.agent_id > b.agent_id ? 1 : 0))
        .map(toTokens);
    },
    forWorkspace: (workspaceId) => sealedTokens(workspaceId),
    sealed: () => sealedTokens(),
    async reseal(connectionId, agentId, from, to) {
      const result = await context.atomically((trx) =>
        trx
          .updateTable('upstream_oauth_tokens')
          .set({ sealed: to.sealed, key_id: to.keyId })
          .where('connection_id', '=', connectionId)
          .where('agent_id', '=', agentId ?? '')
          .where('sealed', '=', from)
          .executeTakeFirst(),
      );
      return Number(result.numUpdatedRows) > 0;
    },
  };
}

function signInRows(context: StoreContext): UpstreamSignInRows {
  const { db } = context;
  return {
    async create(signIn) {
      await context.atomically((trx) =>
        trx
          .insertInto('upstream_sign_ins')
          .values({
            state_hash: signIn.stateHash,
            workspace_id: signIn.workspaceId,
            connection_id: signIn.connectionId,
            agent_id: signIn.agentId,
            actor: signIn.actor,
            browser_hash: signIn.browserHash,
            sealed: signIn.sealed,
            key_id: signIn.keyId,
            host: signIn.host,
            expires_at: signIn.expiresAt,
            created_at: signIn.createdAt,
          })
          .execute(),
      );
    },
    async byState(stateHash) {
      const row = await db
        .selectFrom('upstream_sign_ins')
        .selectAll()
        .where('state_hash', '=', stateHash)
        .executeTakeFirst();
      return row && toSignIn(row);
    },
    async bindBrowser(stateHash, browserHash) {
      const result = await context.atomically((trx) =>
        trx
          .updateTable('upstream_sign_ins')
          .set({ browser_hash: browserHash })
          .where('state_hash', '=', stateHash)
          .where('browser_hash', 'is', null)
          .executeTakeFirst(),
      );
      return Number(result.numUpdatedRows) > 0;
    },
    async take(stateHash) {
      const rows = await context.atomically((trx) =>
        trx
          .deleteFrom('upstream_sign_ins')
          .where('state_hash', '=', stateHash)
          .returningAll()
          .execute(),
      );
      const row = rows[0];
      return row && toSignIn(row);
    },
    async prune(before) {
      const result = await context.atomically((trx) =>
        trx.deleteFrom('upstream_sign_ins').where('expires_at', '<', before).executeTakeFirst(),
      );
      return Number(result.numDeletedRows);
    },
    async liveIn(workspaceId, after) {
      const rows = await db
        .selectFrom('upstream_sign_ins')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('expires_at', '>', after)
        .orderBy('created_at')
        .orderBy('state_hash')
        .execute();
      return rows.map(toSignIn);
    },
    async all() {
      const rows = await db.selectFrom('upstream_sign_ins').selectAll().execute();
      return sortedBy(rows, (row) => row.state_hash).map(toSignIn);
    },
    async reseal(stateHash, from, to) {
      const result = await context.atomically((trx) =>
        trx
          .updateTable('upstream_sign_ins')
          .set({ sealed: to.sealed, key_id: to.keyId })
          .where('state_hash', '=', stateHash)
          .where('sealed', '=', from)
          .executeTakeFirst(),
      );
      return Number(result.numUpdatedRows) > 0;
    },
  };
}

function toClient(row: Selectable<UpstreamOAuthClientTable>): StoredClient {
  return {
    workspaceId: row.workspace_id,
    connectionId: row.connection_id,
    binding: {
      issuer: row.issuer,
      resource: row.resource,
      redirectUri: row.redirect_uri,
      workspaceId: row.workspace_id,
    },
    clientId: row.client_id,
    source: row.source as ClientSource,
    authMethod: row.auth_method as TokenEndpointAuthMethod,
    sealedSecret: row.sealed_secret,
    keyId: row.key_id,
    obtainedAt: row.obtained_at,
    secretExpiresAt: row.secret_expires_at,
  };
}

function toTokens(row: Selectable<UpstreamOAuthTokenTable>): StoredTokens {
  return {
    workspaceId: row.workspace_id,
    connectionId: row.connection_id,
    agentId: row.agent_id === '' ? null : row.agent_id,
    sealed: row.sealed,
    keyId: row.key_id,
    signInRequired: row.sign_in_required as SignInReason | null,
    updatedAt: row.updated_at,
  };
}

function toSignIn(row: Selectable<UpstreamSignInTable>): StoredSignIn {
  return {
    stateHash: row.state_hash,
    workspaceId: row.workspace_id,
    connectionId: row.connection_id,
    agentId: row.agent_id,
    actor: row.actor,
    browserHash: row.browser_hash,
    sealed: row.sealed,
    keyId: row.key_id,
    host: row.host,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
  };
}
