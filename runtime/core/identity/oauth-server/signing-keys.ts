/**
 * The keys access tokens are signed with. By default one ES256 key made at
 * the first start, its private half sealed under the master key in the store
 * (so every replica, and the next start, signs and verifies with it); or a
 * PEM from the environment (`PORTCULLIS_OAUTH_SIGNING_KEY_PEM`, EC P-256 for
 * ES256 or RSA for RS256). `rotate` makes a new current key and retires the
 * old one, which stays published (and trusted) for a day, far longer than
 * any access token it signed lives; or, for a key that leaked, revokes it:
 * deletes it from the store, which moves the governance revision, and a
 * process checking a token against a revision newer than the keys it read
 * reads them again first, so no replica trusts the old key after that
 * (its JWKS drops it as it reads). Every process reads the keys again within
 * a minute anyway, so a rotation anywhere reaches every replica. Keys are
 * named by their JWK thumbprint.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { GatewayError } from '../../base/errors.ts';
import type { Store } from '../../ports/store.ts';
import type { CredentialVault } from '../../vault/credential-vault.ts';
import { type SealedFamily, sealedFamily } from '../../vault/sealed-family.ts';
import { type SigningAlgorithm, signingKeyOfPem } from './signing-key-pem.ts';

/** What the signing keys need of the vault. */
export type SecretVault = Pick<CredentialVault, 'openAt' | 'sealUnderCurrent'>;

export interface ActiveKey {
  kid: string;
  alg: SigningAlgorithm;
  privateKey: KeyObject;
}

interface PublicKey {
  kid: string;
  alg: SigningAlgorithm;
  key: KeyObject;
  jwk: JWK;
  retiredAt: string | null;
}

/** How long a retired key is still published and trusted. */
const RETIRED_KEY_TRUST_MS = 86_400_000;
/** An unknown kid reloads the keys from the store at most this often (another replica rotated). */
const RELOAD_INTERVAL_MS = 5_000;
/**
 * Keys older than this are read again, in the background, when a token is
 * signed or the JWKS served: a rotation by another process (the CLI, another
 * replica) is signed with everywhere within a minute.
 */
export const KEY_REFRESH_MS = 60_000;

export interface SigningKeysOptions {
  store: Store;
  /** Seals and opens the private halves (it follows master key rotations made elsewhere). */
  vault: SecretVault;
  /** A private key from the environment instead of the store's. */
  pem?: string | undefined;
  now?: () => Date;
}

function placeOf(kid: string): string {
  return `oauth/signing-key/${kid}`;
}

export class SigningKeys {
  readonly #options: SigningKeysOptions;
  readonly #now: () => Date;
  #current: ActiveKey | undefined;
  #published: PublicKey[] = [];
  #lastLoad = 0;
  /** The store's revision when the keys were last read. */
  #loadedRevision: number | undefined;
  #reloading: Promise<unknown> | undefined;
  #openError: unknown;

  private constructor(options: SigningKeysOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
  }

  /** Loads the keys, making the first one if the store has none (and no PEM is given). */
  static async open(options: SigningKeysOptions): Promise<SigningKeys> {
    const keys = new SigningKeys(options);
    if (options.pem !== undefined) await keys.#usePem(options.pem);
    else {
      const stored = await keys.#load();
      if (stored === 0) {
        await keys.#create();
        await keys.#load();
      }
    }
    return keys;
  }

  /** The key that signs; `vault_unavailable` when the master key cannot open it. */
  get current(): ActiveKey {
    this.#refreshIfStale();
    if (!this.#current) {
      throw new GatewayError(
        'vault_unavailable',
        'the access-token signing key cannot be opened with the loaded master keys',
        { cause: this.#openError },
      );
    }
    return this.#current;
  }

  /** The JWKS (RFC 7517) of every key a live token may be signed with. */
  jwks(): { keys: JWK[] } {
    this.#refreshIfStale();
    return { keys: this.#trusted().map((key) => key.jwk) };
  }

  /**
   * The public key with that kid, if it is trusted; an unknown kid reloads
   * from the store first, and so does a governance `revision` newer than the
   * one the keys were read at (a key may have been revoked).
   */
  async publicKeyFor(
    kid: string | undefined,
    revision?: number,
  ): Promise<{ key: KeyObject; alg: SigningAlgorithm } | undefined> {
    if (kid === undefined) return undefined;
    if (
      revision !== undefined &&
      this.#options.pem === undefined &&
      (this.#loadedRevision === undefined || revision > this.#loadedRevision)
    ) {
      await this.#reload();
    }
    let found = this.#trusted().find((key) => key.kid === kid);
    if (
      !found &&
      this.#options.pem === undefined &&
      this.#now().getTime() - this.#lastLoad > RELOAD_INTERVAL_MS
    ) {
      await this.#load();
      found = this.#trusted().find((key) => key.kid === kid);
    }
    return found && { key: found.key, alg: found.alg };
  }

  /**
   * A new current key. The old ones are retired but still trusted for a day;
   * with `revokeOld`, deleted and trusted nowhere from now on (a leaked key).
   * Answers the new kid and the kids revoked.
   */
  async rotate(options: { revokeOld?: boolean } = {}): Promise<{ kid: string; revoked: string[] }> {
    if (this.#options.pem !== undefined) {
      throw new TypeError(
        'the signing key comes from PORTCULLIS_OAUTH_SIGNING_KEY_PEM: change it there',
      );
    }
    const rows = this.#options.store.oauth.signingKeys;
    const previous = await rows.list();
    const kid = await this.#create();
    const at = this.#now().toISOString();
    const revoked: string[] = [];
    for (const key of previous) {
      if (options.revokeOld) {
        if (await rows.remove(key.kid)) revoked.push(key.kid);
      } else if (key.retiredAt === null) await rows.retire(key.kid, at);
    }
    await this.#load();
    return { kid, revoked };
  }

  #trusted(): PublicKey[] {
    const since = this.#now().getTime() - RETIRED_KEY_TRUST_MS;
    return this.#published.filter(
      (key) => key.retiredAt === null || Date.parse(key.retiredAt) > since,
    );
  }

  async #create(): Promise<string> {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const jwk = publicJwkOf(privateKey, 'ES256');
    const kid = await calculateJwkThumbprint(jwk);
    await this.#options.store.transaction(async (tx) => {
      const { sealed, keyId } = await this.#options.vault.sealUnderCurrent(tx, placeOf(kid), pem);
      await tx.oauth.signingKeys.create({
        kid,
        alg: 'ES256',
        publicJwk: JSON.stringify({ ...jwk, kid }),
        sealedPrivate: sealed,
        keyId,
        createdAt: this.#now().toISOString(),
        retiredAt: null,
      });
    });
    return kid;
  }

  /** Reads the keys again when they are older than KEY_REFRESH_MS, without making anyone wait. */
  #refreshIfStale(): void {
    if (this.#options.pem !== undefined || this.#reloading !== undefined) return;
    if (this.#now().getTime() - this.#lastLoad <= KEY_REFRESH_MS) return;
    // The keys in hand stay in use; the next stale read tries again.
    this.#reload().catch(() => undefined);
  }

  /** Reads the keys again, once for every caller that asks meanwhile. */
  #reload(): Promise<unknown> {
    this.#reloading ??= this.#load().finally(() => {
      this.#reloading = undefined;
    });
    return this.#reloading;
  }

  /** Waits for a background reload, if one runs (for tests and an orderly close). */
  async settled(): Promise<void> {
    await this.#reloading?.catch(() => undefined);
  }

  /** Reads the keys from the store; answers how many there are. */
  async #load(): Promise<number> {
    this.#lastLoad = this.#now().getTime();
    // Read before the keys: a revocation after this read moves the revision past it.
    const revision = await this.#options.store.revision();
    const rows = await this.#options.store.oauth.signingKeys.list();
    this.#loadedRevision = revision;
    this.#published = rows.map((row) => {
      const jwk = JSON.parse(row.publicJwk) as JWK;
      return {
        kid: row.kid,
        alg: row.alg,
        key: createPublicKey({ key: jwk, format: 'jwk' }),
        jwk,
        retiredAt: row.retiredAt,
      };
    });
    const newest = rows.find((row) => row.retiredAt === null);
    if (newest && newest.kid !== this.#current?.kid) {
      try {
        const pem = this.#options.vault.openAt(placeOf(newest.kid), newest.sealedPrivate);
        this.#current = { kid: newest.kid, alg: newest.alg, privateKey: createPrivateKey(pem) };
      } catch (error) {
        // A wrong master key: tokens already issued still verify; issuing waits for the right key.
        this.#openError = error;
      }
    }
    return rows.length;
  }

  async #usePem(pem: string): Promise<void> {
    const { privateKey, alg } = signingKeyOfPem(pem);
    const jwk = publicJwkOf(privateKey, alg);
    const kid = await calculateJwkThumbprint(jwk);
    this.#current = { kid, alg, privateKey };
    this.#published = [
      { kid, alg, key: createPublicKey(privateKey), jwk: { ...jwk, kid }, retiredAt: null },
    ];
  }
}

function publicJwkOf(privateKey: KeyObject, alg: SigningAlgorithm): JWK {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as JWK;
  return { ...jwk, alg, use: 'sig' };
}

/** The authorization server's signing keys: their private halves. */
export const signingKeyFamily: SealedFamily = sealedFamily(
  'signingKeys',
  async (store) =>
    (await store.oauth.signingKeys.list()).map((key) => ({
      row: key,
      sealed: key.sealedPrivate,
      place: placeOf(key.kid),
    })),
  async (store, { row }, to) => {
    await store.oauth.signingKeys.reseal(row.kid, to.sealed, to.keyId);
    return true;
  },
);
