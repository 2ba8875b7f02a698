/**
 * The current governance snapshot. Each call asks the store for its revision
 * (one small query) and rebuilds the snapshot only when it moved; concurrent
 * callers share one rebuild.
 */
import type { CatalogSet } from '../catalog/catalog-set.ts';
import { GovernanceSnapshot } from '../governance/snapshot.ts';
import type { Store } from '../store/store.ts';

export class GovernanceCache {
  readonly #store: Store;
  readonly #catalogs: CatalogSet;
  #snapshot: GovernanceSnapshot | undefined;
  #building: Promise<GovernanceSnapshot> | undefined;

  constructor(store: Store, catalogs: CatalogSet) {
    this.#store = store;
    this.#catalogs = catalogs;
  }

  async current(): Promise<GovernanceSnapshot> {
    const revision = await this.#store.revision();
    const snapshot = this.#snapshot;
    if (snapshot && snapshot.revision === revision) return snapshot;
    this.#building ??= GovernanceSnapshot.read(this.#store, this.#catalogs).finally(() => {
      this.#building = undefined;
    });
    const built = await this.#building;
    if (!this.#snapshot || built.revision >= this.#snapshot.revision) this.#snapshot = built;
    return built;
  }
}
