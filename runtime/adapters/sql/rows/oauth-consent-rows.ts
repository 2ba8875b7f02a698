import type { Selectable } from 'kysely';
import type { Consent, ConsentStatus } from '../../../core/model/oauth.ts';
import type { ConsentRows } from '../../../core/ports/store.ts';
import type { OAuthConsentTable } from '../tables/schema.ts';
import { sortedBy } from './order.ts';
import type { StoreContext } from './store-context.ts';

export function consentRows(context: StoreContext): ConsentRows {
  const { db } = context;
  return {
    async put(consent) {
      const row = {
        id: consent.id,
        workspace_id: consent.workspaceId,
        member_id: consent.memberId,
        client_id: consent.clientId,
        client_name: consent.clientName,
        agent_id: consent.agentId,
        scopes: JSON.stringify(consent.scopes),
        status: consent.status,
        created_at: consent.createdAt,
        updated_at: consent.updatedAt,
        revoked_at: consent.revokedAt,
      };
      await context.mutate(
        (trx) =>
          trx
            .insertInto('oauth_consents')
            .values(row)
            .onConflict((oc) =>
              oc.column('id').doUpdateSet({
                client_name: row.client_name,
                scopes: row.scopes,
                status: row.status,
                updated_at: row.updated_at,
                revoked_at: row.revoked_at,
              }),
            )
            .execute(),
        [{ field: 'agent', workspaceId: consent.workspaceId, id: consent.agentId }],
      );
    },

    async byId(id) {
      const row = await db
        .selectFrom('oauth_consents')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toConsent(row);
    },

    async byMemberAndClient(memberId, clientId) {
      const row = await db
        .selectFrom('oauth_consents')
        .selectAll()
        .where('member_id', '=', memberId)
        .where('client_id', '=', clientId)
        .executeTakeFirst();
      return row && toConsent(row);
    },

    async list(workspaceId) {
      const rows = await db
        .selectFrom('oauth_consents')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .execute();
      return sortedBy(
        rows.map(toConsent),
        (row) => row.memberId,
        (row) => row.clientId,
      );
    },

    async revoke(id, at) {
      return context.mutate(async (trx) => {
        // Revoking again keeps the first revocation time.
        const result = await trx
          .updateTable('oauth_consents')
          .set((eb) => ({
            status: 'revoked',
            updated_at: at,
            revoked_at: eb.fn.coalesce('revoked_at', eb.val(at)),
          }))
          .where('id', '=', id)
          .executeTakeFirst();
        await trx
          .updateTable('oauth_token_families')
          .set({ status: 'revoked', revoked_at: at })
          .where('consent_id', '=', id)
          .where('status', '=', 'active')
          .execute();
        return result.numUpdatedRows > 0n;
      });
    },
  };
}

function toConsent(row: Selectable<OAuthConsentTable>): Consent {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    memberId: row.member_id,
    clientId: row.client_id,
    clientName: row.client_name,
    agentId: row.agent_id,
    scopes: JSON.parse(row.scopes) as string[],
    status: row.status as ConsentStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    revokedAt: row.revoked_at,
  };
}
