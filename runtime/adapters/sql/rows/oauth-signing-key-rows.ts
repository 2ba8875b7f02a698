import type { SigningKey } from '../../../core/model/oauth.ts';
import type { SigningKeyRows } from '../../../core/ports/store.ts';
import type { StoreContext } from './store-context.ts';

export function signingKeyRows(context: StoreContext): SigningKeyRows {
  const { db } = context;
  return {
    async create(key) {
      await db
        .insertInto('oauth_signing_keys')
        .values({
          kid: key.kid,
          alg: key.alg,
          public_jwk: key.publicJwk,
          sealed_private: key.sealedPrivate,
          key_id: key.keyId,
          created_at: key.createdAt,
          retired_at: key.retiredAt,
        })
        .execute();
    },

    async list() {
      const rows = await db
        .selectFrom('oauth_signing_keys')
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('kid', 'desc')
        .execute();
      return rows.map(
        (row): SigningKey => ({
          kid: row.kid,
          alg: row.alg as SigningKey['alg'],
          publicJwk: row.public_jwk,
          sealedPrivate: row.sealed_private,
          keyId: row.key_id,
          createdAt: row.created_at,
          retiredAt: row.retired_at,
        }),
      );
    },

    async retire(kid, at) {
      const result = await db
        .updateTable('oauth_signing_keys')
        .set((eb) => ({ retired_at: eb.fn.coalesce('retired_at', eb.val(at)) }))
        .where('kid', '=', kid)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async remove(kid) {
      const result = await context.mutate((trx) =>
        trx.deleteFrom('oauth_signing_keys').where('kid', '=', kid).executeTakeFirst(),
      );
      return result.numDeletedRows > 0n;
    },

    async reseal(kid, sealedPrivate, keyId) {
      await db
        .updateTable('oauth_signing_keys')
        .set({ sealed_private: sealedPrivate, key_id: keyId })
        .where('kid', '=', kid)
        .execute();
    },
  };
}
