/**
 * Connection credentials in the store, sealed under the master key and bound to
 * their place (workspace, connection, owner, field), so a value copied to
 * another row does not open. Write-only from every API: nothing here returns a
 * value except to the executor.
 */
import { GatewayError } from '../base/errors.ts';
import type { SealedCredential } from '../model/governance.ts';
import type { Store } from '../ports/store.ts';
import type { Keyring } from './keyring.ts';
import { type SealedFamily, sealedFamily } from './sealed-family.ts';
import { openSecret, sealedKeyId, sealSecret } from './sealed-secret.ts';

export interface CredentialOwner {
  workspaceId: string;
  connectionId: string;
  /** null: the connection's shared credential. */
  agentId: string | null;
}

/** The store setting naming the master key id new secrets are sealed under. */
const CURRENT_KEY_SETTING = 'vault.current_key_id';

function credentialPlace(owner: CredentialOwner, field: string): string {
  return `credential/${owner.workspaceId}/${owner.connectionId}/${owner.agentId ?? 'shared'}/${field}`;
}

export class CredentialVault {
  #keyring: Keyring;
  readonly #reload: (() => Keyring) | undefined;

  /** `reload` reads the keys again (after a rotation by another process). */
  constructor(keyring: Keyring, reload?: () => Keyring) {
    this.#keyring = keyring;
    this.#reload = reload;
  }

  get keyring(): Keyring {
    return this.#keyring;
  }

  async put(
    store: Store,
    owner: CredentialOwner,
    values: Record<string, string>,
    at: string,
  ): Promise<void> {
    await store.transaction(async (tx) => {
      await this.#followRotation(tx);
      for (const [field, value] of Object.entries(values)) {
        const sealed = sealSecret(value, this.#keyring, credentialPlace(owner, field));
        await tx.credentials.put({
          ...owner,
          field,
          sealed,
          keyId: this.#keyring.current.id,
          updatedAt: at,
        });
      }
    });
  }

  /**
   * Seals only under the key the store says is current: after a rotation by
   * another process (the `portcullis` command), reload the keys first, so
   * nothing is sealed under a key that rotation has already dropped.
   */
  async #followRotation(store: Store, hold = false): Promise<void> {
    const current = hold
      ? await store.settings.getHeld(CURRENT_KEY_SETTING)
      : await store.settings.get(CURRENT_KEY_SETTING);
    if (current === undefined || current === this.#keyring.current.id) return;
    if (this.#reload) this.#keyring = this.#reload();
    if (current !== this.#keyring.current.id) {
      throw new GatewayError(
        'vault_unavailable',
        'the store was sealed under a master key this process does not have',
      );
    }
  }

  /** Records which key seals from now on (at the first start, and by every rotation). */
  async recordCurrentKey(store: Store): Promise<void> {
    if ((await store.settings.get(CURRENT_KEY_SETTING)) === undefined) {
      await store.settings.put(CURRENT_KEY_SETTING, this.#keyring.current.id);
    }
  }

  open(rows: readonly SealedCredential[]): Record<string, string> | undefined {
    if (rows.length === 0) return undefined;
    if (this.#reload && rows.some((row) => !this.#keyring.has(row.keyId))) {
      this.#keyring = this.#reload();
    }
    try {
      return Object.fromEntries(
        rows.map((row) => [
          row.field,
          openSecret(row.sealed, this.#keyring, credentialPlace(row, row.field)),
        ]),
      );
    } catch (error) {
      // Not the caller's to fix: a wrong or missing master key, or a tampered row.
      throw new GatewayError(
        'vault_unavailable',
        'a stored credential cannot be opened with the loaded master keys',
        { cause: error },
      );
    }
  }

  /** Opens what `sealUnderCurrent` sealed at `place`; `vault_unavailable` when it does not open. */
  openAt(place: string, sealed: string): string {
    const keyId = sealedKeyId(sealed);
    if (this.#reload && keyId !== undefined && !this.#keyring.has(keyId))
      this.#keyring = this.#reload();
    try {
      return openSecret(sealed, this.#keyring, place);
    } catch (error) {
      throw new GatewayError(
        'vault_unavailable',
        'a stored secret cannot be opened with the loaded master keys',
        { cause: error },
      );
    }
  }

  /**
   * Seals a secret that is not a credential field (an upstream sign-in's
   * tokens, a client secret, a PKCE verifier, a signing key) at its own
   * place, under the key the store names as current, held until `store`'s
   * transaction ends: write the row in that same transaction, so a rotation
   * running meanwhile either sees the row or made this seal follow it.
   */
  async sealUnderCurrent(
    store: Store,
    place: string,
    value: string,
  ): Promise<{ sealed: string; keyId: string }> {
    await this.#followRotation(store, true);
    return { sealed: sealSecret(value, this.#keyring, place), keyId: this.#keyring.current.id };
  }

  /**
   * The first step of a rotation, in its transaction: the store names
   * `keyring`'s key as the one that seals from now on (a gateway sealing at the
   * same time waits for this transaction, then follows), and this vault
   * seals with it.
   */
  async recordRotation(store: Store, keyring: Keyring): Promise<void> {
    await store.settings.put(CURRENT_KEY_SETTING, keyring.current.id);
    this.#keyring = keyring;
  }
}

/** The connections' credentials (API keys, header secrets, basic auth), one row per field. */
export const credentialFamily: SealedFamily = sealedFamily(
  'credentials',
  async (store) =>
    (await store.credentials.all()).map((row) => ({
      row,
      sealed: row.sealed,
      place: credentialPlace(row, row.field),
    })),
  async (store, { row }, to, at) => {
    // Credential writes are governance: they queue on the revision this rotation holds.
    await store.credentials.put({ ...row, sealed: to.sealed, keyId: to.keyId, updatedAt: at });
    return true;
  },
);
