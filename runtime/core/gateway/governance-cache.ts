/**
 * The current governance snapshot. A check asks the store for its revision
 * (one small query) and rebuilds the snapshot only when it moved.
 *
 * Requests that arrive together share one check, and a check only starts on
 * the event loop's next turn, after every request that joined it has arrived:
 * so each request sees every change committed before it arrived (a revoked
 * agent is refused on its very next request), and a burst costs one query.
 */
import type { CatalogSet } from '../catalog/catalog-set.ts';
import { GovernanceSnapshot } from '../governance/snapshot.ts';
import type { Store } from '../store/store.ts';

export class GovernanceCache {
  readonly #store: Store;
  readonly #catalogs: CatalogSet;
  #snapshot: GovernanceSnapshot | undefined;
  #next: Promise<GovernanceSnapshot> | undefined;

  constructor(store: Store, catalogs: CatalogSet) {
    this.#store = store;
    this.#catalogs = catalogs;
  }

  current(): Promise<GovernanceSnapshot> {
    this.#next ??= new Promise((resolve) => {
      setImmediate(() => {
        this.#next = undefined;
        resolve(this.#refresh());
      });
    });
    return this.#next;
  }

  async #refresh(): Promise<GovernanceSnapshot> {
    const revision = await this.#store.revision();
    if (this.#snapshot?.revision === revision) return this.#snapshot;
    const built = await GovernanceSnapshot.read(this.#store, this.#catalogs);
    if (!this.#snapshot || built.revision >= this.#snapshot.revision) this.#snapshot = built;
    return this.#snapshot;
  }
}
