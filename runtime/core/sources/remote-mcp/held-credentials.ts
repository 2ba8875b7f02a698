/**
 * Which credential a held upstream session should carry now, read from the
 * store: the identity (a hash, never the values) of the connection's stored
 * key or headers for that owner, or of its signed-in access token. The
 * session sweep compares it with the identity a session was opened with, so
 * a credential rotated elsewhere (the `portcullis` command, the admin API on
 * another replica) ends the old session here without waiting for a call.
 */

import { openTokens } from '../../identity/oauth-client/sign-in-secrets.ts';
import type { Store } from '../../ports/store.ts';
import type { CredentialVault } from '../../vault/credential-vault.ts';
import { BEARER_FIELD } from './remote-headers.ts';
import { credentialIdentity, upstreamTarget } from './upstream-targets.ts';

/** The identity `owner`'s calls carry now (null: the shared credential); undefined when none. */
export type CurrentIdentity = (
  connectionId: string,
  owner: string | null,
) => Promise<string | undefined>;

export function storedCredentialIdentity(store: Store, vault: CredentialVault): CurrentIdentity {
  return async (connectionId, owner) => {
    const endpoint = await store.remoteEndpoints.byConnection(connectionId);
    if (!endpoint || endpoint.draft !== null) return undefined;
    let credential: Record<string, string> | undefined;
    if (endpoint.authKind === 'oauth') {
      const tokens = openTokens(vault, await store.upstreamOAuth.tokens.get(connectionId, owner));
      if (!tokens) return undefined;
      credential = { [BEARER_FIELD]: tokens.accessToken };
    } else credential = vault.open(await store.credentials.forConnection(connectionId, owner));
    return credentialIdentity(upstreamTarget(endpoint, credential).headers);
  };
}
