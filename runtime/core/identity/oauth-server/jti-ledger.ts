/**
 * The `jti`s of the JWTs the token endpoint took (client assertions,
 * ID-JAGs), each kept until its JWT expires so a second presentation is
 * refused on every replica: in Redis when one is configured (the shared
 * state is then every replica's), in the store otherwise (an in-process
 * shared state is this replica's alone).
 */
import { sha256Hex } from '../../../../generated/catalog-rules.ts';
import { MemorySharedState } from '../../ports/shared-state/memory-shared-state.ts';
import type { SharedState } from '../../ports/shared-state/shared-state.ts';
import type { Store } from '../../ports/store.ts';

export class JtiLedger {
  readonly #state: SharedState;
  readonly #store: Store;
  readonly #inStore: boolean;

  constructor(state: SharedState, store: Store) {
    this.#state = state;
    this.#store = store;
    this.#inStore = state instanceof MemorySharedState;
  }

  /**
   * Records that `issuer` used `jti` in a JWT expiring at `expSeconds`; false
   * when it was recorded already (a replay). Hashed: a jti is the issuer's text.
   * `store` is the transaction the caller's other writes are in, when they
   * are: a jti kept in the store then lands with them, or not at all.
   */
  async first(
    issuer: string,
    jti: string,
    expSeconds: number,
    now: Date,
    store: Store = this.#store,
  ): Promise<boolean> {
    const key = sha256Hex(`${issuer}\n${jti}`);
    const ttlMs = Math.max(1_000, expSeconds * 1000 - now.getTime() + 1_000);
    if (!this.#inStore) return this.#state.add(`oauth:jti:${key}`, '1', ttlMs);
    return store.oauth.assertionJtis.record(
      key,
      new Date(now.getTime() + ttlMs).toISOString(),
      now.toISOString(),
    );
  }
}
