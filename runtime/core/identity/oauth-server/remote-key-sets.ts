/**
 * Public keys the token endpoint checks JWTs with, published at a JWKS URL:
 * a machine client's (`private_key_jwt` assertions) and a trusted IdP's
 * (ID-JAGs). Fetched by jose's remote key set through the guarded client
 * (DNS pinned, private ranges refused outside the development policy, no
 * redirects, replies capped) and kept in this process: 10 minutes, fetched
 * again (at most every 30 s) when a JWT names a key the set lacks.
 */
import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';
import type { GuardedClient } from '../../outbound/guarded-client.ts';
import { getJson } from '../oauth-client/oauth-http.ts';

const CACHE_MAX_AGE_MS = 10 * 60_000;
const COOLDOWN_MS = 30_000;
const MAX_SETS = 1_000;

export class RemoteKeySets {
  readonly #http: GuardedClient;
  readonly #sets = new Map<string, JWTVerifyGetKey>();

  constructor(http: GuardedClient) {
    this.#http = http;
  }

  /** The key set published at `url`, from this process's cache or made now. */
  at(url: string): JWTVerifyGetKey {
    let set = this.#sets.get(url);
    if (set === undefined) {
      if (this.#sets.size >= MAX_SETS) this.#sets.clear();
      set = createRemoteJWKSet(new URL(url), {
        cacheMaxAge: CACHE_MAX_AGE_MS,
        cooldownDuration: COOLDOWN_MS,
        [customFetch]: (href: string) => getJson(this.#http, new URL(href)),
      });
      this.#sets.set(url, set);
    }
    return set;
  }
}
