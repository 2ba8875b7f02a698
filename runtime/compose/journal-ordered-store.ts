/**
 * The gateway's store beside the audit journal. The calls' events are in the
 * journal until folded; so that the log reads as before:
 *
 * - each read of the audit log (its events, the activity sums, the chain)
 *   waits for the fold of what was appended before it: a read made after a
 *   call answered sees that call's event;
 * - each of the store's own writes that may append an event (`audit.append`,
 *   `transaction`: an operator's change, an OAuth grant, with its event in
 *   the same transaction) runs after that fold too, so the ids keep the
 *   order the events happened in (a call answered, then a grant refused,
 *   reads in that order) and the journal chains on from it.
 *
 * Everything else is the store itself.
 */
import type { AuditRows, Store } from '../core/ports/store.ts';

export interface JournalOrder {
  /** Resolves once every event appended before the call is in the store. */
  drain(): Promise<void>;
  /** Runs `write` after `drain`, then chains the journal on from what it wrote. */
  beside<T>(write: () => Promise<T>): Promise<T>;
}

export function journalOrderedStore(store: Store, journal: JournalOrder): Store {
  const rows = store.audit;
  const audit: AuditRows = {
    ...rows,
    append: (event) => journal.beside(() => rows.append(event)),
    query: async (query) => {
      await journal.drain();
      return rows.query(query);
    },
    activity: async (query) => {
      await journal.drain();
      return rows.activity(query);
    },
    chain: async (query) => {
      await journal.drain();
      return rows.chain(query);
    },
    head: async () => {
      await journal.drain();
      return rows.head();
    },
  };
  const transaction: Store['transaction'] = (work) => journal.beside(() => store.transaction(work));
  return new Proxy(store, {
    get(target, property) {
      if (property === 'audit') return audit;
      if (property === 'transaction') return transaction;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
