/**
 * The gateway's store with the audit journal's fold awaited before each read
 * of the audit log (its events and the activity sums): a read made after a
 * call answered sees that call's event, as it did when the event was in the
 * store before the answer. Everything else is the store itself.
 */
import type { AuditRows, Store } from '../core/ports/store.ts';

export function withFoldedAuditReads(store: Store, drain: () => Promise<void>): Store {
  const rows = store.audit;
  const audit: AuditRows = {
    ...rows,
    query: async (query) => {
      await drain();
      return rows.query(query);
    },
    activity: async (query) => {
      await drain();
      return rows.activity(query);
    },
    chain: async (query) => {
      await drain();
      return rows.chain(query);
    },
    head: async () => {
      await drain();
      return rows.head();
    },
  };
  return new Proxy(store, {
    get(target, property) {
      if (property === 'audit') return audit;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
