import type { Selectable } from 'kysely';
import type {
  FamilyStatus,
  RefreshStatus,
  RefreshToken,
  TokenFamily,
} from '../../../core/model/oauth.ts';
import type { TokenRows } from '../../../core/ports/store.ts';
import type { OAuthRefreshTokenTable, OAuthTokenFamilyTable } from '../tables/schema.ts';
import type { StoreContext } from './store-context.ts';

/**
 * Refresh-token families. Issuing and rotating are not governance changes
 * (they leave the revision alone); revoking a family is, so every replica's
 * cached access-token verdicts are checked again on their next request.
 */
export function tokenRows(context: StoreContext): TokenRows {
  const { db } = context;
  return {
    async start(family, first) {
      await context.atomically(async (trx) => {
        await trx.insertInto('oauth_token_families').values(familyRow(family)).execute();
        await trx.insertInto('oauth_refresh_tokens').values(tokenRow(first)).execute();
      });
    },

    async byHash(tokenHash) {
      const row = await db
        .selectFrom('oauth_refresh_tokens')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
      if (!row) return undefined;
      const family = await db
        .selectFrom('oauth_token_families')
        .selectAll()
        .where('id', '=', row.family_id)
        .executeTakeFirst();
      return family && { token: toToken(row), family: toFamily(family) };
    },

    async family(id) {
      const row = await db
        .selectFrom('oauth_token_families')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toFamily(row);
    },

    async rotate(tokenHash, next) {
      return context.atomically(async (trx) => {
        const result = await trx
          .updateTable('oauth_refresh_tokens')
          .set({ status: 'rotated' })
          .where('token_hash', '=', tokenHash)
          .where('status', '=', 'active')
          .executeTakeFirst();
        if (result.numUpdatedRows === 0n) return false;
        await trx.insertInto('oauth_refresh_tokens').values(tokenRow(next)).execute();
        return true;
      });
    },

    async revokeFamily(id, at) {
      const result = await context.mutate((trx) =>
        trx
          .updateTable('oauth_token_families')
          .set({ status: 'revoked', revoked_at: at })
          .where('id', '=', id)
          .where('status', '=', 'active')
          .executeTakeFirst(),
      );
      return result.numUpdatedRows > 0n;
    },

    async prune(before) {
      // The refresh tokens go with their family (on delete cascade).
      const result = await db
        .deleteFrom('oauth_token_families')
        .where((where) =>
          where.or([
            where('expires_at', '<', before),
            where.and([where('status', '=', 'revoked'), where('revoked_at', '<', before)]),
          ]),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

function familyRow(family: TokenFamily) {
  return {
    id: family.id,
    consent_id: family.consentId,
    client_id: family.clientId,
    scopes: JSON.stringify(family.scopes),
    resource: family.resource,
    status: family.status,
    created_at: family.createdAt,
    expires_at: family.expiresAt,
    revoked_at: family.revokedAt,
  };
}

function tokenRow(token: RefreshToken) {
  return {
    token_hash: token.tokenHash,
    family_id: token.familyId,
    scopes: JSON.stringify(token.scopes),
    status: token.status,
    created_at: token.createdAt,
  };
}

function toFamily(row: Selectable<OAuthTokenFamilyTable>): TokenFamily {
  return {
    id: row.id,
    consentId: row.consent_id,
    clientId: row.client_id,
    scopes: JSON.parse(row.scopes) as string[],
    resource: row.resource,
    status: row.status as FamilyStatus,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

function toToken(row: Selectable<OAuthRefreshTokenTable>): RefreshToken {
  return {
    tokenHash: row.token_hash,
    familyId: row.family_id,
    scopes: JSON.parse(row.scopes) as string[],
    status: row.status as RefreshStatus,
    createdAt: row.created_at,
  };
}
