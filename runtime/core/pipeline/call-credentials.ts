/**
 * The credential an allowed call carries: the connection's shared one, or
 * the agent's own under a personal grant, opened from the vault. Opened once
 * per governance revision (a credential change moves the revision); calls
 * arriving while it opens wait for the same opening, and a failed opening is
 * tried again by the next call.
 */
import type { GovernanceSnapshot } from '../governance/snapshot.ts';
import type { Caller } from '../identity/principals/principals.ts';
import type { Store } from '../ports/store.ts';
import type { CredentialVault } from '../vault/credential-vault.ts';
import type { Allowed } from './decision.ts';

export type Credential = Record<string, string> | undefined;

export class CallCredentials {
  readonly #store: Store;
  readonly #vault: CredentialVault;
  readonly #opened = new WeakMap<GovernanceSnapshot, Map<string, Promise<Credential>>>();

  constructor(store: Store, vault: CredentialVault) {
    this.#store = store;
    this.#vault = vault;
  }

  /** The credential of the call the decision allowed; none when its source sends none. */
  of(caller: Caller, allowed: Allowed, sends: boolean): Promise<Credential> {
    if (!sends) return Promise.resolve(undefined);
    let opened = this.#opened.get(caller.snapshot);
    if (!opened) {
      opened = new Map();
      this.#opened.set(caller.snapshot, opened);
    }
    const key = `${allowed.connection.id}/${allowed.credentialOwner ?? ''}`;
    const cached = opened.get(key);
    if (cached !== undefined) return cached;
    const opening = this.#store.credentials
      .forConnection(allowed.connection.id, allowed.credentialOwner)
      .then((rows) => this.#vault.open(rows));
    opened.set(key, opening);
    const held = opened;
    opening.catch(() => {
      if (held.get(key) === opening) held.delete(key);
    });
    return opening;
  }
}
