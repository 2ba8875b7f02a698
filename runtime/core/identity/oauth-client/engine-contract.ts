/**
 * The upstream OAuth client engine's types: its policy and context, what
 * discovery finds, the client material and tokens it hands back, the stores
 * the product implements, and the signature of each operation. The records
 * the store keeps (the authorization server's metadata, a client's binding)
 * are the core's model; they are re-exported here so the engine's files
 * import one module. The operations live in the files beside this one and
 * `upstream-oauth.ts` is the interface the product imports.
 */

import type { AuthorizationServerMetadata } from '../../model/remote.ts';
import type { ClientBinding, ClientSource, TokenEndpointAuthMethod } from '../../model/sign-in.ts';
import type { GuardedClient } from '../../outbound/guarded-client.ts';

export type { AuthorizationServerMetadata } from '../../model/remote.ts';
export type { ClientBinding, ClientSource, TokenEndpointAuthMethod } from '../../model/sign-in.ts';

// ---------------------------------------------------------------------------
// Policy and context

export interface UpstreamOAuthPolicy {
  /**
   * The development policy (`PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS`): plain
   * `http:` is accepted for loopback hosts, and the guarded client reaches
   * private networks.
   */
  allowPrivateNetworks: boolean;
  /**
   * This deployment's own origin (`PORTCULLIS_PUBLIC_URL`'s), whose plain
   * `http:` is accepted too (the callback of a plain-HTTP deployment).
   */
  ownOrigin?: string;
}

/** What every engine operation needs. */
export interface UpstreamOAuthContext {
  /**
   * The guarded outbound client; the engine sends nothing any other way.
   * Make it with `reuseConnections: false`: OAuth exchanges are rare, and a
   * token request (which must not be retried) sent on a kept-alive
   * connection the server just closed as idle fails with ECONNRESET.
   */
  http: GuardedClient;
  policy: UpstreamOAuthPolicy;
  /** The clock (tests pass a fixed one). Default: `() => new Date()`. */
  now?: () => Date;
}

// ---------------------------------------------------------------------------
// Endpoint validation

/**
 * Which remote-chosen address is being checked; a refusal's code is
 * `oauth_<kind>_endpoint_rejected`.
 */
export type OAuthEndpointKind =
  | 'resource_metadata'
  | 'issuer'
  | 'authorization'
  | 'token'
  | 'registration'
  | 'revocation';

/**
 * The one validator for every OAuth address a remote server chose (metadata,
 * a `WWW-Authenticate` hint, a pasted config, a curated definition): an
 * absolute, well-formed URL; `https:`, or `http:` only for a loopback host
 * under the development policy or for `policy.ownOrigin`; no userinfo; no
 * fragment. `javascript:`, `data:`, `file:` and every other scheme fail.
 * Throws `GatewayError('oauth_<kind>_endpoint_rejected')` (422, `field` =
 * the metadata property, detail without the value). Signature:
 *
 *   checkOAuthEndpointUrl(value: unknown, kind: OAuthEndpointKind,
 *                         policy: UpstreamOAuthPolicy, field?: string): URL
 */
export type CheckOAuthEndpointUrl = (
  value: unknown,
  kind: OAuthEndpointKind,
  policy: UpstreamOAuthPolicy,
  field?: string,
) => URL;

// ---------------------------------------------------------------------------
// Discovery

/** The browser sign-in kind; the product adds it to the connection's auth kinds. */
export type UpstreamAuthKind = 'oauth';

/**
 * What `discover` found and the product stores on the connection (no
 * secret in it), so refresh, reconnect, revoke and diagnostics use it.
 */
export interface UpstreamOAuthDiscovery {
  authKind: UpstreamAuthKind;
  /**
   * RFC 8707 `resource`: the protected-resource metadata's `resource`
   * exactly as published (the conformance suite's
   * `resource-parameter-matches-prm`), after it was checked to name the MCP
   * endpoint: same origin, and the endpoint's path or a parent of it. For
   * most servers that is the canonical endpoint (origin + path, no query, no
   * fragment); a server whose metadata sits at the origin names the origin.
   */
  resource: string;
  /** Where the protected-resource metadata was found (RFC 9728). */
  resourceMetadataUrl: string;
  /** The authorization server's issuer, as its metadata states it (checked). */
  issuer: string;
  metadata: AuthorizationServerMetadata;
  /**
   * The scopes to ask for: the challenge's `scope`, else the protected
   * resource's `scopes_supported`, else the authorization server's; empty:
   * no `scope` parameter is sent.
   */
  scopes: string[];
}

/**
 * RFC 9728 then RFC 8414 discovery for an MCP endpoint that answered 401:
 *
 * 1. protected-resource metadata from the challenge's `resource_metadata`
 *    hint, then `/.well-known/oauth-protected-resource<path>`, then the
 *    origin's `/.well-known/oauth-protected-resource`; its `resource` must
 *    name the endpoint (`oauth_resource_mismatch`);
 * 2. for its first authorization server, the metadata in the RFC 8414
 *    insertion form, then the OIDC forms (insertion and suffix); a document
 *    whose `issuer` differs from the one the URL was built from is discarded
 *    (`oauth_issuer_mismatch` when nothing else is found);
 * 3. every address in both passes `checkOAuthEndpointUrl`.
 *
 * `challenge` is the 401's `WWW-Authenticate` value, if there was one.
 * Throws `oauth_discovery_failed` when no usable metadata exists (the
 * endpoint then needs a key or headers instead).
 */
export type Discover = (
  mcpUrl: URL,
  challenge: string | undefined,
  context: UpstreamOAuthContext,
) => Promise<UpstreamOAuthDiscovery>;

// ---------------------------------------------------------------------------
// The WWW-Authenticate challenge, and step-up

export interface BearerChallenge {
  /** RFC 6750 `error`: `invalid_token`, `insufficient_scope`, ... */
  error?: string;
  /** RFC 6750 `scope`, split on spaces. */
  scope?: string[];
  /** RFC 9728 §5.1 `resource_metadata` (not yet checked). */
  resourceMetadata?: string;
}

/** Parses a `WWW-Authenticate` value's Bearer challenge; undefined when it has none. */
export type ParseBearerChallenge = (header: string | undefined) => BearerChallenge | undefined;

/**
 * An upstream `403` with `error="insufficient_scope"` (scenario
 * `auth/scope-step-up`): the scopes a new sign-in asks for, the union of
 * what the token has and what the challenge names, or undefined when that
 * is no wider than what was already asked for (no loop: the caller then
 * fails the call with `oauth_scope_insufficient`). The caller starts a new
 * sign-in (`startSignIn` with `scopes`) and, for an interactive client,
 * follows it again at most once per call.
 */
export type StepUpScopes = (
  granted: readonly string[],
  challenge: BearerChallenge,
) => string[] | undefined;

// ---------------------------------------------------------------------------
// Client material

export interface ClientMaterial {
  clientId: string;
  /** A vault secret in the product; absent for public clients (CIMD, DCR's `none`). */
  clientSecret?: string;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  source: ClientSource;
  binding: ClientBinding;
  /** ISO time of the registration (DCR) or of first use. */
  obtainedAt: string;
  /** RFC 7591 `client_secret_expires_at`, as an ISO time, when the server set one. */
  secretExpiresAt?: string;
}

/**
 * Durable client material for one connection. The product keeps it sealed
 * in the vault; the conformance command in memory.
 */
export interface ClientStore {
  load(): Promise<ClientMaterial | undefined>;
  save(client: ClientMaterial): Promise<void>;
  forget(): Promise<void>;
}

/** A client someone supplied: the deployment's environment, or the operator's form. */
export interface SuppliedClient {
  clientId: string;
  clientSecret?: string;
}

export interface ObtainClientOptions {
  context: UpstreamOAuthContext;
  store: ClientStore;
  /** The connection's name: `PORTCULLIS_TOOL_OAUTH_<NAME>_CLIENT_ID` (upper case, `-` → `_`). */
  connection: string;
  /** Where `PORTCULLIS_TOOL_OAUTH_*` are read from (default: none). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * This deployment's Client ID Metadata Document URL
   * (`<PORTCULLIS_PUBLIC_URL>/connect/oauth/client-metadata.json`): given
   * only when the public URL is public `https:`; otherwise CIMD is skipped.
   */
  clientMetadataUrl?: string;
  /** The client the operator entered, if they did. */
  operatorClient?: SuppliedClient;
  /**
   * Whether registration (CIMD, DCR) may happen: only on an explicit
   * operator connect after validated discovery. Default false.
   */
  mayRegister?: boolean;
  /** The `client_name` sent in DCR. Default `Portcullis`. */
  clientName?: string;
}

/**
 * The client for a sign-in, in the seed's order: preconfigured
 * (`PORTCULLIS_TOOL_OAUTH_<NAME>_*`, then the unsuffixed pair; always wins
 * when set); else the stored material while its binding matches (and its
 * secret has not expired); else CIMD (the server advertises
 * `client_id_metadata_document_supported` and `clientMetadataUrl` is public
 * https), DCR (a public client: `token_endpoint_auth_method: none` where the
 * server lists it, `application_type: web`, the callback,
 * `authorization_code` + `refresh_token`; the method the server answers
 * with is kept), the operator's. A minted client (CIMD, DCR) whose binding
 * changed is registered again; an operator's is not:
 * `oauth_client_rebind_required` (422, field `client_id`) unless
 * `operatorClient` is given again; with no way at all
 * `oauth_client_required` (422, field `client_id`: the operator enters
 * one; the draft connection is kept). CIMD or DCR needed while
 * `mayRegister` is false: `oauth_sign_in_required`.
 * Saves what it obtained to `store`.
 */
export type ObtainClient = (
  discovery: UpstreamOAuthDiscovery,
  binding: ClientBinding,
  options: ObtainClientOptions,
) => Promise<ClientMaterial>;

/**
 * This deployment's Client ID Metadata Document (served unauthenticated):
 * only the callback, the grant, response and auth methods; no workspace,
 * connection or secret data.
 */
export interface ClientMetadataDocument {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
  application_type: 'web';
}

/** Builds the document for `clientMetadataUrl` and the callback. */
export type BuildClientMetadataDocument = (
  clientMetadataUrl: string,
  redirectUri: string,
) => ClientMetadataDocument;

// ---------------------------------------------------------------------------
// The sign-in

export interface StartSignInOptions {
  /** Must equal the client's `binding.redirectUri`. */
  redirectUri: string;
  /** Scopes to ask for. Default: the discovery's. */
  scopes?: readonly string[];
  /**
   * RFC 8707 `resource` on the authorization, token and refresh requests.
   * Default true; false is the per-connection switch for servers that
   * refuse it (Entra).
   */
  sendResource?: boolean;
  /** How long the pending sign-in is valid. Default 10 minutes. */
  ttlMs?: number;
}

/**
 * A sign-in between the authorization URL and the callback. The product
 * persists it (shared state, short-lived, single-use, bound to the operator
 * or agent and the draft connection) keyed by `state`. `codeVerifier` is a
 * secret: never logged, never shown.
 */
export interface PendingSignIn {
  state: string;
  /** PKCE S256 verifier. */
  codeVerifier: string;
  /** RFC 9207: the issuer `iss` must equal when present (or when the server promised it). */
  expectedIssuer: string;
  resource: string;
  sendResource: boolean;
  scopes: string[];
  redirectUri: string;
  clientId: string;
  /** The metadata the token request uses (a snapshot; no secret). */
  metadata: AuthorizationServerMetadata;
  /** ISO time after which the callback is refused (`oauth_state_invalid`). */
  expiresAt: string;
}

export interface SignInStart {
  /** Where to send the person (checked: `https:` and the rest). */
  authorizationUrl: URL;
  /** The host to name on the page and in the CLI ("you are being sent to ..."). */
  host: string;
  pending: PendingSignIn;
}

/** Builds the authorization request: PKCE S256, `state`, `resource`, `scope`. */
export type StartSignIn = (
  discovery: UpstreamOAuthDiscovery,
  client: ClientMaterial,
  options: StartSignInOptions,
  context: UpstreamOAuthContext,
) => Promise<SignInStart>;

/** The tokens of one credential (shared, or an agent's personal one); vault secrets in the product. */
export interface TokenSet {
  accessToken: string;
  refreshToken?: string;
  /** ISO time the access token expires, when the server said. */
  expiresAt?: string;
  /** The granted scopes (the token response's `scope`, else what was asked for). */
  scopes: string[];
  tokenType: 'bearer';
  obtainedAt: string;
}

/** The tokens of one credential, as the product keeps them. */
export interface TokenStore {
  load(): Promise<TokenSet | undefined>;
  save(tokens: TokenSet): Promise<void>;
  forget(): Promise<void>;
}

/**
 * The callback: checks `state` against the pending sign-in (exactly; an
 * expired one is `oauth_state_invalid`), an `error` reply
 * (`oauth_authorization_denied` with its RFC code), RFC 9207 `iss` (a
 * mismatch, or an absent `iss` when the server advertised
 * `authorization_response_iss_parameter_supported`, is
 * `oauth_iss_mismatch`, and the code is not exchanged), then exchanges the
 * code with the PKCE verifier and `resource`. `client` is the material the
 * sign-in started with (its secret, if any, authenticates the exchange).
 * Returns the tokens; the caller stores them.
 */
export type FinishSignIn = (
  pending: PendingSignIn,
  callback: URLSearchParams,
  client: ClientMaterial,
  context: UpstreamOAuthContext,
) => Promise<TokenSet>;

/** What a refresh or a revocation needs besides the tokens. */
export interface TokenGrant {
  metadata: AuthorizationServerMetadata;
  client: ClientMaterial;
  resource: string;
  sendResource: boolean;
}

/**
 * The refresh-token grant (with `resource` unless switched off). A rotated
 * refresh token is in the result, the old one kept when none came back;
 * `invalid_grant` or `invalid_client` is `oauth_sign_in_required` (the
 * product puts the credential in `sign_in_required`; no retry).
 */
export type RefreshTokens = (
  grant: TokenGrant,
  tokens: TokenSet,
  context: UpstreamOAuthContext,
) => Promise<TokenSet>;

/**
 * RFC 7009 revocation of the refresh token, then the access token, where
 * the server has a `revocation_endpoint`; returns whether it revoked at the
 * server. Failures there do not throw (the caller forgets the tokens anyway).
 */
export type RevokeTokens = (
  grant: TokenGrant,
  tokens: TokenSet,
  context: UpstreamOAuthContext,
) => Promise<{ revoked: boolean }>;

/** Whether the access token is expired or expires within `skewMs` (default 60 s). */
export type NeedsRefresh = (tokens: TokenSet, now: Date, skewMs?: number) => boolean;

// ---------------------------------------------------------------------------
// Reason codes the engine throws (all in runtime/core/base/errors.ts)

export type UpstreamOAuthReason =
  | `oauth_${OAuthEndpointKind}_endpoint_rejected`
  | 'oauth_discovery_failed'
  | 'oauth_resource_mismatch'
  | 'oauth_issuer_mismatch'
  | 'oauth_client_required'
  | 'oauth_client_rebind_required'
  | 'oauth_registration_failed'
  | 'oauth_state_invalid'
  | 'oauth_iss_mismatch'
  | 'oauth_authorization_denied'
  | 'oauth_resource_refused'
  | 'oauth_token_failed'
  | 'oauth_sign_in_required'
  | 'oauth_scope_insufficient';
