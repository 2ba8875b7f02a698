/**
 * Every credential the gateway holds for a workspace, as one redactor that
 * each call's reply goes through: the connections' shared keys and header
 * values, every agent's personal ones, the upstream access and refresh
 * tokens of signed-in connections and their clients' secrets. A server
 * that answers with another connection's key (it learned it somewhere, or
 * echoes what it was sent) reaches the agent with `[redacted]` in its place.
 *
 * Built once per governance revision and workspace (a credential set,
 * rotated or removed moves the revision) and shared by every call of that
 * revision; calls arriving while it is built wait for the same one, and a
 * failed build is tried again by the next call. An upstream token refreshed
 * between two revisions is known to its own calls' redactor (their
 * credential), not yet to the workspace's until the next revision.
 */

import type { GovernanceSnapshot } from '../governance/snapshot.ts';
import { clientSecretPlace, openTokens } from '../identity/oauth-client/sign-in-secrets.ts';
import type { SealedCredential } from '../model/governance.ts';
import { Redactor } from '../outbound/redaction.ts';
import type { Store } from '../ports/store.ts';
import type { CredentialVault } from '../vault/credential-vault.ts';

/**
 * The shortest value taken out of other connections' replies. Redaction
 * replaces bytes before the reply is parsed, so a value of a few characters
 * (a test token `t`, a header such as `X-Team: eu`) would tear every reply of
 * the workspace apart; so short a value protects nothing anyway. A call's own
 * credential is still taken out of its own replies whatever its length.
 */
export const SHORTEST_SHARED_SECRET = 8;

export class WorkspaceSecrets {
  readonly #store: Store;
  readonly #vault: CredentialVault;
  readonly #built = new WeakMap<GovernanceSnapshot, Map<string, Promise<Redactor>>>();

  constructor(store: Store, vault: CredentialVault) {
    this.#store = store;
    this.#vault = vault;
  }

  /** The workspace's redactor at the snapshot's revision. */
  of(snapshot: GovernanceSnapshot, workspaceId: string): Promise<Redactor> {
    let built = this.#built.get(snapshot);
    if (!built) {
      built = new Map();
      this.#built.set(snapshot, built);
    }
    const cached = built.get(workspaceId);
    if (cached !== undefined) return cached;
    const building = this.#build(workspaceId);
    built.set(workspaceId, building);
    building.catch(() => {
      if (built.get(workspaceId) === building) built.delete(workspaceId);
    });
    return building;
  }

  async #build(workspaceId: string): Promise<Redactor> {
    const store = this.#store;
    const [credentials, tokens, clients] = await Promise.all([
      store.credentials.forWorkspace(workspaceId),
      store.upstreamOAuth.tokens.forWorkspace(workspaceId),
      store.upstreamOAuth.clients.sealed(),
    ]);
    const secrets: string[] = [];
    // Each credential's fields are sealed at their own place: opened one credential at a time.
    const byOwner = new Map<string, SealedCredential[]>();
    for (const row of credentials) {
      const owner = `${row.connectionId}\0${row.agentId ?? ''}`;
      byOwner.set(owner, [...(byOwner.get(owner) ?? []), row]);
    }
    for (const rows of byOwner.values())
      secrets.push(...Object.values(this.#vault.open(rows) ?? {}));
    for (const row of tokens) {
      const set = openTokens(this.#vault, row);
      if (set === undefined) continue;
      secrets.push(set.accessToken);
      if (set.refreshToken !== undefined) secrets.push(set.refreshToken);
    }
    for (const client of clients) {
      if (client.workspaceId !== workspaceId || client.sealedSecret === null) continue;
      secrets.push(
        this.#vault.openAt(
          clientSecretPlace(workspaceId, client.connectionId),
          client.sealedSecret,
        ),
      );
    }
    return new Redactor(secrets.filter((secret) => secret.length >= SHORTEST_SHARED_SECRET));
  }
}
