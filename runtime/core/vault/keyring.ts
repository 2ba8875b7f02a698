/**
 * Master keys by id. Secrets are sealed under the current key; older keys stay
 * to open what was sealed before a rotation, until everything is re-sealed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { VaultError } from './vault-error.ts';

export const KEY_BYTES = 32;

export interface MasterKey {
  /** Derived from the key (never the key itself), so it is stable and safe to store beside ciphertexts. */
  readonly id: string;
  readonly bytes: Buffer;
}

export function masterKey(bytes: Uint8Array): MasterKey {
  if (bytes.byteLength !== KEY_BYTES) throw new TypeError(`a master key is ${KEY_BYTES} bytes`);
  const copy = Buffer.from(bytes);
  const id = createHash('sha256')
    .update('portcullis master key id\0')
    .update(copy)
    .digest('hex')
    .slice(0, 16);
  return { id, bytes: copy };
}

export function generateMasterKey(): MasterKey {
  return masterKey(randomBytes(KEY_BYTES));
}

export class Keyring {
  readonly current: MasterKey;
  readonly #byId: ReadonlyMap<string, MasterKey>;

  /** `current` seals; `previous` only open. */
  constructor(current: MasterKey, previous: readonly MasterKey[] = []) {
    this.current = current;
    this.#byId = new Map([...previous, current].map((key) => [key.id, key]));
  }

  /** The keys that only open (kept until nothing is sealed under them). */
  get previous(): MasterKey[] {
    return [...this.#byId.values()].filter((key) => key.id !== this.current.id);
  }

  has(id: string): boolean {
    return this.#byId.has(id);
  }

  keyOrThrow(id: string): MasterKey {
    const key = this.#byId.get(id);
    if (!key) throw new VaultError('vault_key_unknown', `no master key with id ${id} is loaded`);
    return key;
  }

  /** A keyring whose current key is `next`, still able to open what this one sealed. */
  rotatedTo(next: MasterKey): Keyring {
    return new Keyring(
      next,
      [...this.#byId.values()].filter((key) => key.id !== next.id),
    );
  }
}
