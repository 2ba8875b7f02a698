/**
 * The gateway's two OAuth roles, wired: the authorization server MCP
 * clients sign in to Portcullis with, and the upstream OAuth client that
 * signs Portcullis in to remote MCP servers, with the access tokens their
 * calls carry. OAuth exchanges upstream are rare and never retried: they go
 * out on a client of their own, a connection each, never a kept-alive one.
 */
import type { Config } from '../config/config.ts';
import { signInNeeded } from '../core/identity/oauth-client/sign-in-needed.ts';
import { UpstreamSignIn } from '../core/identity/oauth-client/upstream-sign-in.ts';
import { UpstreamTokens } from '../core/identity/oauth-client/upstream-tokens.ts';
import { AuthorizationServer } from '../core/identity/oauth-server/authorization-server.ts';
import { createGuardedClient, type GuardedClient } from '../core/outbound/guarded-client.ts';
import type { SharedState } from '../core/ports/shared-state/shared-state.ts';
import type { Store } from '../core/ports/store.ts';
import type { CredentialVault } from '../core/vault/credential-vault.ts';

export interface OAuthRoles {
  oauth: AuthorizationServer;
  upstreamSignIn: UpstreamSignIn;
  tokens: UpstreamTokens;
}

export async function openOAuth(options: {
  config: Config;
  /** Where Portcullis is reached (its issuer when `PORTCULLIS_PUBLIC_URL` is unset). */
  baseUrl: string;
  store: Store;
  state: SharedState;
  vault: CredentialVault;
  outbound: GuardedClient;
  now: () => Date;
  /** Told of what the gateway closes last (the sign-in client). */
  closeLater: Array<() => Promise<void>>;
}): Promise<OAuthRoles> {
  const { config, baseUrl, store, state, vault, now } = options;
  const oauthOutbound = createGuardedClient({
    allowPrivateNetworks: config.allowPrivateNetworks,
    deadlineMs: config.upstreamDeadlineMs,
    reuseConnections: false,
  });
  options.closeLater.push(() => oauthOutbound.close());
  const oauth = await AuthorizationServer.open({
    issuer: config.publicUrl ?? baseUrl,
    store,
    state,
    vault,
    outbound: options.outbound,
    redirectAllowlist: config.oauthRedirectUris,
    defaultScopes: config.oauthDefaultScopes,
    signingKeyPem: config.oauthSigningKeyPem,
    allowPrivateNetworks: config.allowPrivateNetworks,
    tokenRequests: config.rateLimits.client,
    idp: { http: oauthOutbound, secrets: config.idpSecrets },
    stepUp: config.oauthStepUp,
    now,
  });
  const upstreamSignIn = new UpstreamSignIn({
    store,
    vault,
    state,
    http: oauthOutbound,
    allowPrivateNetworks: config.allowPrivateNetworks,
    baseUrl,
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    env: config.toolOAuthClients,
    now,
  });
  const tokens = new UpstreamTokens(
    upstreamSignIn,
    (owner, reason) => signInNeeded(upstreamSignIn, store, owner, reason),
    (acting, audience) => oauth.mintSubjectToken(acting, audience),
    (request) => oauth.requestIdJag(request),
  );
  return { oauth, upstreamSignIn, tokens };
}
