/**
 * The durable rows of signing in to a remote MCP server (migration 0007), as
 * the core sees them. Every secret in them (a client secret, the tokens, the
 * PKCE verifier) is a sealed vault string, opened only where it is sent.
 */

/** How the client was obtained, in the order the engine tries them. */
export type ClientSource = 'preconfigured' | 'cimd' | 'dcr' | 'operator';

/**
 * What a client is bound to: when any of these differ from the current
 * sign-in's, the material is not used (never across issuers or workspaces).
 */
export interface ClientBinding {
  /** The authorization server's issuer. */
  issuer: string;
  /** The MCP resource (the discovery's `resource`). */
  resource: string;
  /** This deployment's callback (`<public url>/connect/oauth/callback`). */
  redirectUri: string;
  workspaceId: string;
}

export type TokenEndpointAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

/** The client a connection signs in with, and what it is bound to. */
export interface StoredClient {
  workspaceId: string;
  connectionId: string;
  binding: ClientBinding;
  clientId: string;
  source: ClientSource;
  authMethod: TokenEndpointAuthMethod;
  /** The sealed client secret; null for a public client. */
  sealedSecret: string | null;
  keyId: string | null;
  obtainedAt: string;
  secretExpiresAt: string | null;
}

/**
 * Why a credential needs a person to sign in again: the server refused its
 * refresh token (`invalid_grant`), no longer knows the client
 * (`invalid_client`), the server refused freshly refreshed tokens too
 * (`token_refused`: it moved to another authorization server, say), it was
 * signed out, or it needs a wider scope.
 */
export type SignInReason =
  | 'invalid_grant'
  | 'invalid_client'
  | 'token_refused'
  | 'signed_out'
  | 'scope_insufficient';

/** One credential's tokens (shared: `agentId` null; personal: the agent's). */
export interface StoredTokens {
  workspaceId: string;
  connectionId: string;
  agentId: string | null;
  /** The sealed token set (JSON); null once forgotten. */
  sealed: string | null;
  keyId: string | null;
  /** Set when the tokens stopped working and a person must sign in again. */
  signInRequired: SignInReason | null;
  updatedAt: string;
}

/** A sign-in between its link and the callback. */
export interface StoredSignIn {
  /** sha256 (hex) of the `state`: the row never holds the value itself. */
  stateHash: string;
  workspaceId: string;
  connectionId: string;
  /** The agent whose personal credential this signs in; null: the connection's shared one. */
  agentId: string | null;
  /** Who started it: an operator (admin token id, `cli`) or `agent:<id>`. */
  actor: string;
  /** sha256 of the cookie set on the browser that opened the link; the callback must bring it. */
  browserHash: string | null;
  /** The sealed pending sign-in (JSON: verifier, expected issuer, client id, …). */
  sealed: string;
  keyId: string;
  /** The host the person is sent to. */
  host: string;
  expiresAt: string;
  createdAt: string;
}
