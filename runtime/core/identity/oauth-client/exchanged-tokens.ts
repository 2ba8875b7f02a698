/**
 * Upstream tokens got by token exchange (RFC 8693), shared by every replica
 * through the shared state (Redis when `REDIS_URL` is set), so a call on a
 * second replica carries the token the first exchanged and makes no request
 * to the authorization server.
 *
 * - One entry per connection, member, agent, upstream resource, audience and
 *   subject token type: another agent of the same member (another client)
 *   never gets this agent's token, nor does a connection whose settings
 *   changed. And per member epoch (`member-epoch.ts`): `idp sync`, a new
 *   sign-in at the IdP and the member's removal move it, so every entry
 *   exchanged before is out of every replica's reach at once (Redis lets it
 *   expire).
 * - The key is a hash of those ids; the value is the token and its expiry
 *   sealed under the master key (as every other secret is), bound to that
 *   key, so Redis holds neither the token nor who it is for in clear, and a
 *   value copied under another key does not open.
 * - The entry's TTL is the token's expiry less the minute of margin after
 *   which the gateway exchanges again; a token whose expiry the server did
 *   not say is kept in the replica that got it only.
 * - The cache is an optimisation: a value that does not open (a master key
 *   dropped by a rotation), or a shared state that cannot be reached, is a
 *   miss, and the gateway exchanges again.
 */
import { createHash } from 'node:crypto';
import type { ActingFor } from '../../model/delegation.ts';
import type { SharedState } from '../../ports/shared-state/shared-state.ts';
import type { Store } from '../../ports/store.ts';
import type { CredentialVault } from '../../vault/credential-vault.ts';
import type { TokenSet } from './engine-contract.ts';

/** As `needsRefresh`'s: a token this close to its expiry is exchanged again, so it is not shared. */
export const EXCHANGE_AHEAD_MS = 60_000;
const MIN_TTL_MS = 1_000;

/** What makes one exchanged token: whose it is, and what it was exchanged for. */
export interface ExchangeFor {
  connectionId: string;
  acting: ActingFor;
  /**
   * The member's epoch (`member-epoch.ts`): it moves when `idp sync` reads the
   * member again, when they sign in at the IdP again and when they are
   * removed, so no replica finds a token exchanged before.
   */
  epoch: string;
  resource: string;
  audience: string | undefined;
  subjectTokenType: string;
}

interface Kept {
  accessToken: string;
  expiresAt: string;
  scopes: string[];
  obtainedAt: string;
}

export interface ExchangedTokensOptions {
  state: SharedState;
  store: Store;
  vault: CredentialVault;
  now: () => Date;
}

export class ExchangedTokens {
  readonly #options: ExchangedTokensOptions;

  constructor(options: ExchangedTokensOptions) {
    this.#options = options;
  }

  /** The token another replica (or this one) exchanged for the same, while it is not due. */
  async read(of: ExchangeFor): Promise<TokenSet | undefined> {
    const id = entryId(of);
    try {
      const sealed = await this.#options.state.get(keyOf(id));
      return sealed === undefined ? undefined : this.#opened(id, sealed);
    } catch {
      return undefined;
    }
  }

  /** Shares `tokens` until a minute before they expire; nothing when their expiry is unknown or near. */
  async write(of: ExchangeFor, tokens: TokenSet): Promise<void> {
    if (tokens.expiresAt === undefined) return;
    const ttlMs = Date.parse(tokens.expiresAt) - EXCHANGE_AHEAD_MS - this.#options.now().getTime();
    if (!(ttlMs >= MIN_TTL_MS)) return;
    const id = entryId(of);
    const kept: Kept = {
      accessToken: tokens.accessToken,
      expiresAt: tokens.expiresAt,
      scopes: tokens.scopes,
      obtainedAt: tokens.obtainedAt,
    };
    try {
      const { sealed } = await this.#options.vault.sealUnderCurrent(
        this.#options.store,
        placeOf(id),
        JSON.stringify(kept),
      );
      await this.#options.state.set(keyOf(id), sealed, Math.floor(ttlMs));
    } catch {
      // Not shared: the other replicas exchange their own.
    }
  }

  /** After the upstream refused `used`: the shared entry is dropped when it still holds it. */
  async forget(of: ExchangeFor, used: string): Promise<void> {
    const id = entryId(of);
    try {
      const sealed = await this.#options.state.get(keyOf(id));
      if (sealed !== undefined && this.#opened(id, sealed)?.accessToken === used)
        await this.#options.state.compareAndSet(keyOf(id), sealed, undefined);
    } catch {
      // Its TTL ends it.
    }
  }

  #opened(id: string, sealed: string): TokenSet | undefined {
    let kept: Kept;
    try {
      kept = JSON.parse(this.#options.vault.openAt(placeOf(id), sealed)) as Kept;
    } catch {
      return undefined;
    }
    if (typeof kept.accessToken !== 'string' || typeof kept.expiresAt !== 'string')
      return undefined;
    return {
      accessToken: kept.accessToken,
      expiresAt: kept.expiresAt,
      scopes: Array.isArray(kept.scopes) ? kept.scopes : [],
      tokenType: 'bearer',
      obtainedAt: kept.obtainedAt,
    };
  }
}

/** The in-process cache's key and the shared entry's id: every part of what makes the token. */
export function entryId(of: ExchangeFor): string {
  return createHash('sha256')
    .update(
      [
        of.connectionId,
        of.acting.memberId,
        of.acting.agentId,
        of.acting.clientId ?? '',
        of.epoch,
        of.resource,
        of.audience ?? '',
        of.subjectTokenType,
      ].join('\n'),
    )
    .digest('hex');
}

function keyOf(id: string): string {
  return `upstream:exchanged:${id}`;
}

/** Where the vault binds the seal: a value moved to another entry does not open. */
function placeOf(id: string): string {
  return `upstream-exchanged:${id}`;
}
