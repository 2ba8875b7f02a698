import type { Selectable } from 'kysely';
import type {
  GroupEffect,
  GroupMapping,
  IdentityProvider,
  MemberIdentity,
} from '../../../core/model/identity.ts';
import { MEMBER_ROLES, type MemberRole } from '../../../core/model/oauth.ts';
import type { IdentityRows } from '../../../core/ports/store.ts';
import type {
  GroupEffectTable,
  GroupMappingTable,
  IdentityProviderTable,
  MemberIdentityTable,
} from '../tables/schema.ts';
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
              id_jag: provider.idJag ? 1 : 0,
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

    async refreshToken(issuer, subject) {
      const row = await db
        .selectFrom('member_identities')
        .select('refresh_token')
        .where('issuer', '=', issuer)
        .where('subject', '=', subject)
        .executeTakeFirst();
      return row?.refresh_token ?? null;
    },

    async setRefreshToken(issuer, subject, sealed) {
      await db
        .updateTable('member_identities')
        .set({ refresh_token: sealed })
        .where('issuer', '=', issuer)
        .where('subject', '=', subject)
        .execute();
    },

    async setSubjectTokens(issuer, subject, sealed) {
      await db
        .updateTable('member_identities')
        .set({ subject_tokens: sealed })
        .where('issuer', '=', issuer)
        .where('subject', '=', subject)
        .execute();
    },

    async latestSubjectTokens(memberId) {
      const row = await db
        .selectFrom('member_identities')
        .select(['issuer', 'subject', 'subject_tokens'])
        .where('member_id', '=', memberId)
        .where('subject_tokens', 'is not', null)
        .orderBy('last_sign_in_at', 'desc')
        .orderBy('issuer', 'asc')
        .orderBy('subject', 'asc')
        .limit(1)
        .executeTakeFirst();
      if (!row || row.subject_tokens === null) return undefined;
      return { issuer: row.issuer, subject: row.subject, sealed: row.subject_tokens };
    },

    async identitiesOf(memberId) {
      const rows = await db
        .selectFrom('member_identities')
        .selectAll()
        .where('member_id', '=', memberId)
        .execute();
      return sortedBy(rows.map(toIdentity), (row) => `${row.issuer} ${row.subject}`);
    },

    async addMapping(mapping) {
      await context.mutate(
        (trx) =>
          trx
            .insertInto('idp_group_mappings')
            .values({
              id: mapping.id,
              provider_id: mapping.providerId,
              workspace_id: mapping.workspaceId,
              group_name: mapping.group,
              role: mapping.role,
              connection_id: mapping.connectionId,
              scope: mapping.scope,
              created_at: mapping.createdAt,
            })
            .execute(),
        mapping.connectionId === null
          ? []
          : [{ field: 'connection', workspaceId: mapping.workspaceId, id: mapping.connectionId }],
      );
    },

    async mappings(providerId) {
      const rows = await db
        .selectFrom('idp_group_mappings')
        .selectAll()
        .where('provider_id', '=', providerId)
        .execute();
      return sortedBy(rows.map(toMapping), (row) => `${row.group} ${row.id}`);
    },

    async removeMapping(id) {
      const result = await context.mutate((trx) =>
        trx.deleteFrom('idp_group_mappings').where('id', '=', id).executeTakeFirst(),
      );
      return result.numDeletedRows > 0n;
    },

    async effectsOf(memberId) {
      const rows = await db
        .selectFrom('idp_member_effects')
        .selectAll()
        .where('member_id', '=', memberId)
        .execute();
      return sortedBy(rows.map(toEffect), (row) => `${row.kind} ${row.target}`);
    },

    async putEffect(effect) {
      await context.mutate(async (trx) => {
        await trx
          .deleteFrom('idp_member_effects')
          .where('member_id', '=', effect.memberId)
          .where('kind', '=', effect.kind)
          .where('target', '=', effect.target)
          .execute();
        await trx
          .insertInto('idp_member_effects')
          .values({
            member_id: effect.memberId,
            kind: effect.kind,
            target: effect.target,
            grant_id: effect.grantId,
            provider_name: effect.providerName,
            group_name: effect.group,
            applied_at: effect.appliedAt,
          })
          .execute();
      });
    },

    async removeEffect(memberId, kind, target) {
      await context.mutate((trx) =>
        trx
          .deleteFrom('idp_member_effects')
          .where('member_id', '=', memberId)
          .where('kind', '=', kind)
          .where('target', '=', target)
          .execute(),
      );
    },
  };
}

function toMapping(row: Selectable<GroupMappingTable>): GroupMapping {
  return {
    id: row.id,
    providerId: row.provider_id,
    workspaceId: row.workspace_id,
    group: row.group_name,
    role: row.role === 'viewer' || row.role === 'operator' ? row.role : null,
    connectionId: row.connection_id,
    scope: row.scope === 'all' ? 'all' : 'reads',
    createdAt: row.created_at,
  };
}

function toEffect(row: Selectable<GroupEffectTable>): GroupEffect {
  return {
    memberId: row.member_id,
    kind: row.kind === 'role' ? 'role' : 'grant',
    target: row.target,
    grantId: row.grant_id,
    providerName: row.provider_name,
    group: row.group_name,
    appliedAt: row.applied_at,
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
    idJag: Number(row.id_jag) === 1,
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
