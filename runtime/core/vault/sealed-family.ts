/**
 * A family of rows that hold secrets sealed under the master key. A master
 * key rotation re-seals every family in one transaction before the old keys
 * are forgotten; the list of families is `SEALED_UNDER_MASTER_KEY`
 * (`runtime/core/operator/sealed-under-master-key.ts`).
 */
import type { Store } from '../ports/store.ts';
import type { Keyring } from './keyring.ts';
import { resealSecret, sealedKeyId } from './sealed-secret.ts';

export interface SealedFamily {
  /** What the family holds, as the rotation reports it (`credentials`, `upstreamTokens`, …). */
  readonly name: string;
  /**
   * Re-seals every row not under `keyring`'s current key (which can still
   * open the old ones); answers how many it changed. A row that changed
   * meanwhile (forgotten, replaced) is left as it is now.
   */
  reseal(store: Store, keyring: Keyring, at: string): Promise<number>;
}

/** One sealed row as a family lists it: the value and the place it was sealed at. */
export interface SealedValue<Row> {
  row: Row;
  sealed: string;
  place: string;
}

/**
 * A family from how to list its sealed values and how to write one back
 * (compare-and-set on the old value: false when the row moved on).
 */
export function sealedFamily<Row>(
  name: string,
  list: (store: Store) => Promise<Array<SealedValue<Row>>>,
  write: (
    store: Store,
    value: SealedValue<Row>,
    to: { sealed: string; keyId: string },
    at: string,
  ) => Promise<boolean>,
): SealedFamily {
  return {
    name,
    async reseal(store, keyring, at) {
      let changed = 0;
      for (const value of await list(store)) {
        if (sealedKeyId(value.sealed) === keyring.current.id) continue;
        const sealed = resealSecret(value.sealed, keyring, value.place);
        if (await write(store, value, { sealed, keyId: keyring.current.id }, at)) changed += 1;
      }
      return changed;
    },
  };
}
