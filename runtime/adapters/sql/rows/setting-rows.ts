import type { SettingRows } from '../../../core/ports/store.ts';
import type { StoreContext } from './store-context.ts';

export function settingRows(context: StoreContext): SettingRows {
  const { db } = context;
  return {
    async get(key) {
      const row = await db
        .selectFrom('settings')
        .select('value')
        .where('key', '=', key)
        .executeTakeFirst();
      return row?.value;
    },

    async getHeld(key) {
      const query = db.selectFrom('settings').select('value').where('key', '=', key);
      const row = await (context.engine === 'postgres'
        ? query.forShare()
        : query
      ).executeTakeFirst();
      return row?.value;
    },

    async put(key, value) {
      await context.mutate((trx) =>
        trx
          .insertInto('settings')
          .values({ key, value })
          .onConflict((conflict) =>
            conflict.column('key').doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })),
          )
          .execute(),
      );
    },
  };
}
