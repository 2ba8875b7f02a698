/**
 * Writes the calls' audit events with group commit: the events of every call
 * that finishes in the same turn of the event loop go to the store in one
 * statement, and each call's result waits until its event is stored. Under
 * load that is one insert per batch instead of per call; alone, a call waits
 * one turn.
 */
import type { NewAuditEvent } from '../governance/model.ts';
import type { Store } from '../store/store.ts';

interface Pending {
  event: NewAuditEvent;
  done: () => void;
  failed: (error: unknown) => void;
}

const MAX_BATCH = 500;

export class AuditLog {
  readonly #store: Store;
  #queue: Pending[] = [];
  #scheduled = false;

  constructor(store: Store) {
    this.#store = store;
  }

  append(event: NewAuditEvent): Promise<void> {
    return new Promise((done, failed) => {
      this.#queue.push({ event, done, failed });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    // One statement per flush; a larger backlog goes on the next turn.
    const batch = this.#queue.splice(0, MAX_BATCH);
    this.#scheduled = this.#queue.length > 0;
    if (this.#scheduled) setImmediate(() => this.#flush());
    try {
      await this.#store.audit.appendMany(batch.map((p) => p.event));
      for (const pending of batch) pending.done();
    } catch (error) {
      for (const pending of batch) pending.failed(error);
    }
  }
}
