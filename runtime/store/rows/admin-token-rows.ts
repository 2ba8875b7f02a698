import type { AdminTokenRows } from '../../core/store/store.ts';
import type { StoreContext } from '../store-context.ts';

export function adminTokenRows(context: StoreContext): AdminTokenRows {
  const { db } = context;
  return {
    async create(id, tokenHash, at) {
      await context.mutate((trx) =>
        trx
          .insertInto('admin_tokens')
          .values({ id, token_hash: tokenHash, created_at: at })
          .execute(),
      );
    },

    async byHash(tokenHash) {
      const row = await db
        .selectFrom('admin_tokens')
        .select('id')
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
      return row && { id: row.id };
    },

    async count() {
      const row = await db
        .selectFrom('admin_tokens')
        .select((eb) => eb.fn.countAll<number | string>().as('count'))
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },
  };
}
