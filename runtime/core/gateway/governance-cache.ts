/**
 * The current governance snapshot. A check asks the store for its revision
 * (one small query) and rebuilds the snapshot only when it moved.
 *
 * Each request must see every change committed before it arrived (a revoked
 * agent is refused on its very next request). A request that finds no check
 * running starts one at once. A request that finds one running cannot trust
 * it, since it may have read the revision before the request arrived, so it
 * joins the next check, which starts as soon as the running one ends and is
 * shared by everyone who arrived meanwhile. On the embedded engine a check
 * ends within the turn that started it; against a database server a burst
 * costs one query per round trip.
 */
import type { CatalogSet } from '../catalog/catalog-set.ts';
import { GovernanceSnapshot } from '../governance/snapshot.ts';
import type { Store } from '../store/store.ts';

export class GovernanceCache {
  readonly #store: Store;
  readonly #catalogs: CatalogSet;
  #snapshot: GovernanceSnapshot | undefined;
  #running: Promise<GovernanceSnapshot> | undefined;
  #queued: Promise<GovernanceSnapshot> | undefined;

  constructor(store: Store, catalogs: CatalogSet) {
    this.#store = store;
    this.#catalogs = catalogs;
  }

  current(): Promise<GovernanceSnapshot> {
    if (this.#running === undefined) return this.#start();
    if (this.#queued === undefined) {
      const next = () => {
        this.#queued = undefined;
        return this.#start();
      };
      this.#queued = this.#running.then(next, next);
    }
    return this.#queued;
  }

  #start(): Promise<GovernanceSnapshot> {
    const check = this.#refresh().finally(() => {
      if (this.#running === check) this.#running = undefined;
    });
    this.#running = check;
    return check;
  }

  async #refresh(): Promise<GovernanceSnapshot> {
    const revision = await this.#store.revision();
    if (this.#snapshot?.revision === revision) return this.#snapshot;
    const built = await GovernanceSnapshot.read(this.#store, this.#catalogs);
    if (!this.#snapshot || built.revision >= this.#snapshot.revision) this.#snapshot = built;
    return this.#snapshot;
  }
}
