import type { Selectable } from 'kysely';
import {
  MACHINE_AUTH_METHODS,
  type MachineAuthMethod,
  type MachineClient,
} from '../../../core/model/oauth.ts';
import type { AssertionJtiRows, MachineClientRows } from '../../../core/ports/store.ts';
import type { OAuthMachineClientTable } from '../tables/schema.ts';
import { sortedBy } from './order.ts';
import type { StoreContext } from './store-context.ts';

export function machineClientRows(context: StoreContext): MachineClientRows {
  const { db } = context;
  return {
    async create(client) {
      await context.mutate(
        (trx) =>
          trx
            .insertInto('oauth_machine_clients')
            .values({
              id: client.id,
              workspace_id: client.workspaceId,
              agent_id: client.agentId,
              name: client.name,
              auth_method: client.auth,
              secret_hash: client.secretHash,
              jwks_uri: client.jwksUri,
              created_at: client.createdAt,
            })
            .execute(),
        [
          { field: 'workspace', id: client.workspaceId },
          { field: 'agent', workspaceId: client.workspaceId, id: client.agentId },
        ],
      );
    },

    async byId(id) {
      const row = await db
        .selectFrom('oauth_machine_clients')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toMachineClient(row);
    },

    async list(workspaceId) {
      const rows = await db
        .selectFrom('oauth_machine_clients')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .execute();
      return sortedBy(rows.map(toMachineClient), (client) => client.name);
    },
  };
}

export function assertionJtiRows(context: StoreContext): AssertionJtiRows {
  return {
    async record(key, expiresAt, now) {
      return context.atomically(async (trx) => {
        await trx.deleteFrom('oauth_assertion_jtis').where('expires_at', '<=', now).execute();
        const inserted = await trx
          .insertInto('oauth_assertion_jtis')
          .values({ jti_key: key, expires_at: expiresAt })
          .onConflict((oc) => oc.column('jti_key').doNothing())
          .executeTakeFirst();
        return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
      });
    },
    async forget(key, expiresAt) {
      await context.db
        .deleteFrom('oauth_assertion_jtis')
        .where('jti_key', '=', key)
        .where('expires_at', '=', expiresAt)
        .execute();
    },
  };
}

function toMachineClient(row: Selectable<OAuthMachineClientTable>): MachineClient {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    name: row.name,
    auth: (MACHINE_AUTH_METHODS as readonly string[]).includes(row.auth_method)
      ? (row.auth_method as MachineAuthMethod)
      : 'private_key_jwt',
    secretHash: row.secret_hash,
    jwksUri: row.jwks_uri,
    createdAt: row.created_at,
  };
}
