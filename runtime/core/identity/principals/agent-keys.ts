/**
 * Agent keys (`pck_…`): high-entropy random strings, stored as their sha256.
 * Every request presents one, so the hashes of the keys seen last are kept.
 */
import { BoundedCache } from '../../base/bounded-cache.ts';
import { AGENT_KEY_PREFIX, hashKey } from '../../governance/keys.ts';
import type { GovernanceSnapshot } from '../../governance/snapshot.ts';
import type { CredentialStrategy, Verified } from './principals.ts';

export class AgentKeys implements CredentialStrategy {
  readonly kind = 'agent_key';
  readonly #hashes = new BoundedCache<string>(10_000);

  recognises(token: string): boolean {
    return token.startsWith(AGENT_KEY_PREFIX);
  }

  verify(token: string, snapshot: GovernanceSnapshot): Verified | undefined {
    const agent = snapshot.agentByKeyHash(this.#hashes.get(token, hashKey));
    return agent && { agent };
  }
}
