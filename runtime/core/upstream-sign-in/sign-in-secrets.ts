/**
 * Where the secrets of a sign-in live: the engine's `ClientStore` and
 * `TokenStore` over the store's rows, every secret sealed by the vault at
 * its own place (so a value copied to another row, connection or workspace
 * does not open there), and the token set's JSON never leaving this file but
 * to the engine and the executor.
 */
import type { Store } from '../store/store.ts';
import type {
  ClientMaterial,
  ClientStore,
  TokenSet,
  TokenStore,
} from '../upstream-oauth/upstream-oauth.ts';
import type { CredentialVault } from '../vault/credential-vault.ts';
import type { SignInReason, StoredTokens } from './sign-in-model.ts';

export interface CredentialPlace {
  workspaceId: string;
  connectionId: string;
  /** null: the connection's shared credential. */
  agentId: string | null;
}

export function tokensPlace(owner: CredentialPlace): string {
  return `upstream-oauth/${owner.workspaceId}/${owner.connectionId}/${owner.agentId ?? 'shared'}/tokens`;
}

export function clientSecretPlace(workspaceId: string, connectionId: string): string {
  return `upstream-oauth/${workspaceId}/${connectionId}/client-secret`;
}

export function signInPlace(workspaceId: string, connectionId: string, stateHash: string): string {
  return `upstream-sign-in/${workspaceId}/${connectionId}/${stateHash}`;
}

/** The connection's client, sealed secret and binding in its row. */
export function vaultClientStore(
  store: Store,
  vault: CredentialVault,
  workspaceId: string,
  connectionId: string,
): ClientStore {
  const place = clientSecretPlace(workspaceId, connectionId);
  return {
    async load() {
      const row = await store.upstreamOAuth.clients.byConnection(connectionId);
      if (!row || row.workspaceId !== workspaceId) return undefined;
      const material: ClientMaterial = {
        clientId: row.clientId,
        tokenEndpointAuthMethod: row.authMethod,
        source: row.source,
        binding: row.binding,
        obtainedAt: row.obtainedAt,
      };
      if (row.sealedSecret !== null) material.clientSecret = vault.openAt(place, row.sealedSecret);
      if (row.secretExpiresAt !== null) material.secretExpiresAt = row.secretExpiresAt;
      return material;
    },
    async save(client) {
      const secret =
        client.clientSecret === undefined ? undefined : vault.seal(place, client.clientSecret);
      await store.upstreamOAuth.clients.put({
        workspaceId,
        connectionId,
        binding: client.binding,
        clientId: client.clientId,
        source: client.source,
        authMethod: client.tokenEndpointAuthMethod,
        sealedSecret: secret?.sealed ?? null,
        keyId: secret?.keyId ?? null,
        obtainedAt: client.obtainedAt,
        secretExpiresAt: client.secretExpiresAt ?? null,
      });
    },
    async forget() {
      await store.upstreamOAuth.clients.remove(connectionId);
    },
  };
}

/** Opens a credential's row: its tokens, or undefined when it has none. */
export function openTokens(
  vault: CredentialVault,
  row: StoredTokens | undefined,
): TokenSet | undefined {
  if (!row || row.sealed === null || row.signInRequired !== null) return undefined;
  return JSON.parse(vault.openAt(tokensPlace(row), row.sealed)) as TokenSet;
}

/** One credential's tokens; `save` clears a sign-in-required state, `forget` records why. */
export function vaultTokenStore(
  store: Store,
  vault: CredentialVault,
  owner: CredentialPlace,
  now: () => Date,
): TokenStore & { forgetBecause(reason: SignInReason): Promise<void> } {
  const forgetBecause = async (reason: SignInReason) => {
    await store.upstreamOAuth.tokens.put({
      ...owner,
      sealed: null,
      keyId: null,
      signInRequired: reason,
      updatedAt: now().toISOString(),
    });
  };
  return {
    async load() {
      const row = await store.upstreamOAuth.tokens.get(owner.connectionId, owner.agentId);
      // Never across workspaces: a row of another one is not this owner's.
      return row?.workspaceId === owner.workspaceId ? openTokens(vault, row) : undefined;
    },
    async save(tokens) {
      const { sealed, keyId } = vault.seal(tokensPlace(owner), JSON.stringify(tokens));
      await store.upstreamOAuth.tokens.put({
        ...owner,
        sealed,
        keyId,
        signInRequired: null,
        updatedAt: now().toISOString(),
      });
    },
    forget: () => forgetBecause('signed_out'),
    forgetBecause,
  };
}
