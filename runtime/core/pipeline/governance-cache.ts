/**
 * The current governance snapshot. A check asks the store for its revision
 * (one small query) and rebuilds the snapshot only when it moved.
 *
 * Each request must see every change committed before it arrived (a revoked
 * agent is refused on its very next request), so a check serves only requests
 * that arrived before it started. The first request of an event-loop turn
 * checks at once: a lone caller waits for nothing. Requests handled later in
 * the same turn may have arrived after that check started, so they share one
 * more check, started when the turn's I/O is done. A burst of any size costs
 * at most two queries.
 */
import { GovernanceSnapshot, type GovernanceSnapshotOptions } from '../governance/snapshot.ts';
import type { ToolSources } from '../governance/tool-source.ts';
import type { Store } from '../ports/store.ts';

export class GovernanceCache {
  readonly #store: Store;
  readonly #toolSources: ToolSources;
  readonly #options: GovernanceSnapshotOptions;
  #snapshot: GovernanceSnapshot | undefined;
  /** A check started in this turn of the event loop. */
  #checkedThisTurn = false;
  /** The check the rest of this turn's requests share. */
  #endOfTurn: Promise<GovernanceSnapshot> | undefined;

  constructor(store: Store, toolSources: ToolSources, options: GovernanceSnapshotOptions = {}) {
    this.#store = store;
    this.#toolSources = toolSources;
    this.#options = options;
  }

  current(): Promise<GovernanceSnapshot> {
    if (this.#checkedThisTurn) {
      this.#endOfTurn ??= new Promise((resolve) => {
        setImmediate(() => {
          this.#endOfTurn = undefined;
          resolve(this.#refresh());
        });
      });
      return this.#endOfTurn;
    }
    this.#checkedThisTurn = true;
    setImmediate(() => {
      this.#checkedThisTurn = false;
    });
    return this.#refresh();
  }

  async #refresh(): Promise<GovernanceSnapshot> {
    const revision = await this.#store.revision();
    if (this.#snapshot?.revision === revision) return this.#snapshot;
    const built = await GovernanceSnapshot.read(this.#store, this.#toolSources, this.#options);
    if (!this.#snapshot || built.revision >= this.#snapshot.revision) this.#snapshot = built;
    return this.#snapshot;
  }
}
