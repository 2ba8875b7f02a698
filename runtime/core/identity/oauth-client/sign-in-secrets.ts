/**
 * Where the secrets of a sign-in live: the engine's `ClientStore` and
 * `TokenStore` over the store's rows, every secret sealed by the vault at
 * its own place (so a value copied to another row, connection or workspace
 * does not open there), and the token set's JSON never leaving this file but
 * to the engine and the executor.
 */

import type { SignInReason, StoredTokens } from '../../model/sign-in.ts';
import type { Store } from '../../ports/store.ts';
import type { CredentialVault } from '../../vault/credential-vault.ts';
import { type SealedFamily, sealedFamily } from '../../vault/sealed-family.ts';
import type { ClientMaterial, ClientStore, TokenSet, TokenStore } from './upstream-oauth.ts';

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
      await store.transaction(async (tx) => {
        const secret =
          client.clientSecret === undefined
            ? undefined
            : await vault.sealUnderCurrent(tx, place, client.clientSecret);
        await tx.upstreamOAuth.clients.put({
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
      // Under the key the store names, so a refresh right after a rotation by the command follows it.
      await store.transaction(async (tx) => {
        const place = tokensPlace(owner);
        const { sealed, keyId } = await vault.sealUnderCurrent(tx, place, JSON.stringify(tokens));
        await tx.upstreamOAuth.tokens.put({
          ...owner,
          sealed,
          keyId,
          signInRequired: null,
          updatedAt: now().toISOString(),
        });
      });
    },
    forget: () => forgetBecause('signed_out'),
    forgetBecause,
  };
}

/** Client secrets an operator entered or a registration returned. */
export const upstreamClientSecretFamily: SealedFamily = sealedFamily(
  'upstreamClientSecrets',
  async (store) =>
    (await store.upstreamOAuth.clients.sealed()).map((row) => ({
      row,
      sealed: row.sealedSecret!,
      place: clientSecretPlace(row.workspaceId, row.connectionId),
    })),
  (store, { row, sealed }, to) => store.upstreamOAuth.clients.reseal(row.connectionId, sealed, to),
);

/** Each signed-in credential's access and refresh tokens (shared and personal). */
export const upstreamTokenFamily: SealedFamily = sealedFamily(
  'upstreamTokens',
  async (store) =>
    (await store.upstreamOAuth.tokens.sealed()).map((row) => ({
      row,
      sealed: row.sealed!,
      place: tokensPlace(row),
    })),
  (store, { row, sealed }, to) =>
    store.upstreamOAuth.tokens.reseal(row.connectionId, row.agentId, sealed, to),
);

/** Sign-ins between their link and the callback (the PKCE verifier, the expected issuer). */
export const pendingSignInFamily: SealedFamily = sealedFamily(
  'pendingSignIns',
  async (store) =>
    (await store.upstreamOAuth.signIns.all()).map((row) => ({
      row,
      sealed: row.sealed,
      place: signInPlace(row.workspaceId, row.connectionId, row.stateHash),
    })),
  (store, { row, sealed }, to) => store.upstreamOAuth.signIns.reseal(row.stateHash, sealed, to),
);
