/**
 * Writes the calls' audit events with group commit: the events of every call
 * that finishes in the same turn of the event loop go to the store in one
 * statement, and each call's result waits until its event is stored. Under
 * load that is one insert per batch instead of per call. A call that runs
 * alone has no one to share a batch with, so its event is written at once.
 *
 * Each event is chained as the audit journal chains its records (sha256 over
 * the previous hash and the event's canonical text, `governance/audit-chain.ts`),
 * so `portcullis audit verify` covers the default path too: one chain per
 * process (per replica), begun from the store's newest chained event at the
 * first write. One batch is stored at a time (the next one forms while it
 * commits), so a batch the store refuses is the chain's last: the next one
 * chains on from the hash before it, never from an event that is not stored.
 */
import { CHAIN_GENESIS, chained } from '../governance/audit-chain.ts';
import type { ChainedAuditEvent, NewAuditEvent } from '../model/governance.ts';
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
  #writing = false;
  /** The hash the next event chains on from (undefined: not read from the store yet). */
  #prevHash: string | undefined;

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
    // One batch at a time; what arrives meanwhile goes in the next one.
    if (this.#writing || this.#queue.length === 0) return;
    this.#writing = true;
    // One statement per flush; a larger backlog goes on the next turn.
    const batch = this.#queue.splice(0, MAX_BATCH);
    try {
      this.#prevHash ??= (await this.#store.audit.head())?.hash ?? CHAIN_GENESIS;
      const start = this.#prevHash;
      const records: ChainedAuditEvent[] = [];
      let prevHash = start;
      for (const { event } of batch) {
        const record = chained(event, prevHash);
        records.push(record);
        prevHash = record.hash;
      }
      try {
        await this.#store.audit.appendChained(records);
        this.#prevHash = prevHash;
      } catch (error) {
        this.#prevHash = start;
        throw error;
      }
      for (const pending of batch) pending.done();
    } catch (error) {
      for (const pending of batch) pending.failed(error);
    } finally {
      this.#writing = false;
      if (this.#queue.length > 0) this.#flushAtEndOfTurn();
    }
  }
}
