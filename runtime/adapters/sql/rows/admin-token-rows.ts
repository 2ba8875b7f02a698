import type { AdminTokenRows } from '../../../core/ports/store.ts';
import type { StoreContext } from './store-context.ts';

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

    async list() {
      const rows = await db
        .selectFrom('admin_tokens')
        .select(['id', 'created_at'])
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map((row) => ({ id: row.id, createdAt: row.created_at }));
    },

    async remove(id) {
      const result = await context.mutate((trx) =>
        trx.deleteFrom('admin_tokens').where('id', '=', id).executeTakeFirst(),
      );
      return result.numDeletedRows > 0n;
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
