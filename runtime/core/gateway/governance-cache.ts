/**
 * The current governance snapshot. A check asks the store for its revision
 * (one small query) and rebuilds the snapshot only when it moved. Requests
 * that arrive together share one check: its answer serves until the event
 * loop's next turn, so a change committed before a request arrived is always
 * seen by it, and a burst of requests costs one query.
 */
import type { CatalogSet } from '../catalog/catalog-set.ts';
import { GovernanceSnapshot } from '../governance/snapshot.ts';
import type { Store } from '../store/store.ts';

export class GovernanceCache {
  readonly #store: Store;
  readonly #catalogs: CatalogSet;
  #snapshot: GovernanceSnapshot | undefined;
  #check: Promise<GovernanceSnapshot> | undefined;

  constructor(store: Store, catalogs: CatalogSet) {
    this.#store = store;
    this.#catalogs = catalogs;
  }

  current(): Promise<GovernanceSnapshot> {
    if (!this.#check) {
      this.#check = this.#refresh();
      const forget = () => {
        setImmediate(() => {
          this.#check = undefined;
        });
      };
      this.#check.then(forget, forget);
    }
    return this.#check;
  }

  async #refresh(): Promise<GovernanceSnapshot> {
    const revision = await this.#store.revision();
    if (this.#snapshot?.revision === revision) return this.#snapshot;
    const built = await GovernanceSnapshot.read(this.#store, this.#catalogs);
    if (!this.#snapshot || built.revision >= this.#snapshot.revision) this.#snapshot = built;
    return this.#snapshot;
  }
}
