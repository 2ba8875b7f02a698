import type { Selectable } from 'kysely';
import type { IdentityProvider, MemberIdentity } from '../../../core/model/identity.ts';
import { MEMBER_ROLES, type MemberRole } from '../../../core/model/oauth.ts';
import type { IdentityRows } from '../../../core/ports/store.ts';
import type { IdentityProviderTable, MemberIdentityTable } from '../tables/schema.ts';
import { sortedBy } from './order.ts';
import type { StoreContext } from './store-context.ts';

export function identityRows(context: StoreContext): IdentityRows {
  const { db } = context;
  return {
    async addProvider(provider) {
      await context.mutate(
        (trx) =>
          trx
            .insertInto('identity_providers')
            .values({
              id: provider.id,
              workspace_id: provider.workspaceId,
              name: provider.name,
              issuer: provider.issuer,
              client_id: provider.clientId,
              client_secret_env: provider.clientSecretEnv,
              only: provider.only ? 1 : 0,
              name_claim: provider.nameClaim,
              scopes: provider.scopes,
              groups_claim: provider.groupsClaim,
              role: provider.role,
              created_at: provider.createdAt,
            })
            .execute(),
        [{ field: 'workspace', id: provider.workspaceId }],
      );
    },

    async providers() {
      const rows = await db.selectFrom('identity_providers').selectAll().execute();
      return sortedBy(rows.map(toProvider), (row) => row.name);
    },

    async providerByName(name) {
      const row = await db
        .selectFrom('identity_providers')
        .selectAll()
        .where('name', '=', name)
        .executeTakeFirst();
      return row && toProvider(row);
    },

    async removeProvider(id) {
      const result = await context.mutate((trx) =>
        trx.deleteFrom('identity_providers').where('id', '=', id).executeTakeFirst(),
      );
      return result.numDeletedRows > 0n;
    },

    async identity(issuer, subject) {
      const row = await db
        .selectFrom('member_identities')
        .selectAll()
        .where('issuer', '=', issuer)
        .where('subject', '=', subject)
        .executeTakeFirst();
      return row && toIdentity(row);
    },

    async addIdentity(identity) {
      await context.mutate(
        (trx) =>
          trx
            .insertInto('member_identities')
            .values({
              issuer: identity.issuer,
              subject: identity.subject,
              member_id: identity.memberId,
              provider_name: identity.providerName,
              created_at: identity.createdAt,
              last_sign_in_at: identity.lastSignInAt,
            })
            .execute(),
        [{ field: 'member', id: identity.memberId }],
      );
    },

    async signedIn(issuer, subject, at) {
      await db
        .updateTable('member_identities')
        .set({ last_sign_in_at: at })
        .where('issuer', '=', issuer)
        .where('subject', '=', subject)
        .execute();
    },

    async identitiesOf(memberId) {
      const rows = await db
        .selectFrom('member_identities')
        .selectAll()
        .where('member_id', '=', memberId)
        .execute();
      return sortedBy(rows.map(toIdentity), (row) => `${row.issuer} ${row.subject}`);
    },
  };
}

function toProvider(row: Selectable<IdentityProviderTable>): IdentityProvider {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecretEnv: row.client_secret_env,
    only: Number(row.only) === 1,
    nameClaim: row.name_claim,
    scopes: row.scopes,
    groupsClaim: row.groups_claim,
    role: (MEMBER_ROLES as readonly string[]).includes(row.role)
      ? (row.role as MemberRole)
      : 'member',
    createdAt: row.created_at,
  };
}

function toIdentity(row: Selectable<MemberIdentityTable>): MemberIdentity {
  return {
    issuer: row.issuer,
    subject: row.subject,
    memberId: row.member_id,
    providerName: row.provider_name,
    createdAt: row.created_at,
    lastSignInAt: row.last_sign_in_at,
  };
}
