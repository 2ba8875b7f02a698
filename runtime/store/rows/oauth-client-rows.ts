import type { ClientRows } from '../../core/store/store.ts';
import type { StoreContext } from '../store-context.ts';

export function clientRows(context: StoreContext): ClientRows {
  const { db } = context;
  return {
    async create(client) {
      await db
        .insertInto('oauth_clients')
        .values({
          id: client.id,
          name: client.name,
          redirect_uris: JSON.stringify(client.redirectUris),
          created_at: client.createdAt,
        })
        .execute();
    },

    async byId(id) {
      const row = await db
        .selectFrom('oauth_clients')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return (
        row && {
          id: row.id,
          name: row.name,
          redirectUris: JSON.parse(row.redirect_uris) as string[],
          createdAt: row.created_at,
        }
      );
    },
  };
}
