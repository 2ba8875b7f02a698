/**
 * The `jti`s of the JWTs the token endpoint took (client assertions,
 * ID-JAGs), each kept until its JWT expires so a second presentation is
 * refused on every replica: in Redis when one is configured (the shared
 * state is then every replica's), in the store otherwise (an in-process
 * shared state is this replica's alone).
 *
 * A jti is claimed before the token request's writes commit, never after
 * (two replicas that both checked first would both redeem it), and given
 * back when the request fails after the claim (a refusal, or a store commit
 * that failed): a JWT no token came of is not used up. In Redis the claim is
 * an `add` of a value of its own, so of two replicas presenting one JWT at
 * once exactly one holds it, and the release deletes only that value. In
 * the store the record is an insert that only one request makes (the jti's
 * key is unique); written in the caller's transaction (an ID-JAG's), a
 * failure rolls it back with the rest, and written on its own (a client
 * assertion's, before the grant) the release deletes that record.
 */
import { randomUUID } from 'node:crypto';
import { sha256Hex } from '../../../../generated/catalog-rules.ts';
import { MemorySharedState } from '../../ports/shared-state/memory-shared-state.ts';
import type { SharedState } from '../../ports/shared-state/shared-state.ts';
import type { Store } from '../../ports/store.ts';

/** A jti held for one token request: kept when it succeeds, released when it fails. */
export interface JtiClaim {
  /** Gives the jti back (the request failed): it may be presented again. Never throws. */
  release(): Promise<void>;
}

const ROLLED_BACK_WITH_CALLER: JtiClaim = { release: async () => {} };

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
   * Claims `issuer`'s `jti` in a JWT expiring at `expSeconds`; undefined when
   * it is held or was used already (a replay). Hashed: a jti is the
   * issuer's text. `store` is the transaction the caller's other writes are
   * in, when they are: a jti kept in the store then lands with them, or not
   * at all (its release is the rollback).
   */
  async claim(
    issuer: string,
    jti: string,
    expSeconds: number,
    now: Date,
    store: Store = this.#store,
  ): Promise<JtiClaim | undefined> {
    const key = sha256Hex(`${issuer}\n${jti}`);
    const ttlMs = Math.max(1_000, expSeconds * 1000 - now.getTime() + 1_000);
    if (this.#inStore) {
      const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
      const first = await store.oauth.assertionJtis.record(key, expiresAt, now.toISOString());
      if (!first) return undefined;
      // In the caller's transaction: its rollback is the release.
      if (store !== this.#store) return ROLLED_BACK_WITH_CALLER;
      const jtis = this.#store.oauth.assertionJtis;
      return {
        release: async () => {
          try {
            await jtis.forget(key, expiresAt);
          } catch {
            // The store cannot be reached: the jti stays used (refused again, never redeemed twice).
          }
        },
      };
    }
    const place = `oauth:jti:${key}`;
    const holder = randomUUID();
    if (!(await this.#state.add(place, holder, ttlMs))) return undefined;
    return {
      release: async () => {
        try {
          await this.#state.compareAndSet(place, holder, undefined);
        } catch {
          // The shared state cannot be reached: the jti stays used (refused again, never redeemed twice).
        }
      },
    };
  }
}
