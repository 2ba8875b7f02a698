/**
 * Writes the calls' audit events with group commit: the events of every call
 * that finishes in the same turn of the event loop go to the store in one
 * statement, and each call's result waits until its event is stored. Under
 * load that is one insert per batch instead of per call. A call that runs
 * alone has no one to share a batch with, so its event is written at once.
 */
import type { NewAuditEvent } from '../model/governance.ts';
import type { AuditWriter } from '../ports/audit-writer.ts';
import type { Store } from '../ports/store.ts';

interface Pending {
  event: NewAuditEvent;
  done: () => void;
  failed: (error: unknown) => void;
}

/** As many as the store writes in one statement (its own batch), so one flush is one insert. */
const MAX_BATCH = 500;

export class AuditLog implements AuditWriter {
  readonly #store: Store;
  #queue: Pending[] = [];
  #scheduled = false;

  constructor(store: Store) {
    this.#store = store;
  }

  /** `alone`: no other call is running, so no batch can form by waiting. */
  append(event: NewAuditEvent, { alone = false } = {}): Promise<void> {
    return new Promise((done, failed) => {
      this.#queue.push({ event, done, failed });
      if (alone) void this.#flush();
      else this.#flushAtEndOfTurn();
    });
  }

  #flushAtEndOfTurn(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    // One statement per flush; a larger backlog goes on the next turn.
    const batch = this.#queue.splice(0, MAX_BATCH);
    if (batch.length === 0) return;
    if (this.#queue.length > 0) this.#flushAtEndOfTurn();
    try {
      await this.#store.audit.appendMany(batch.map((p) => p.event));
      for (const pending of batch) pending.done();
    } catch (error) {
      for (const pending of batch) pending.failed(error);
    }
  }
}
