/**
 * The authorization server's durable rows: the people who sign in, the
 * clients that registered, each person's consent to a client (and the one
 * agent principal it stands for), refresh-token families and the signing
 * keys. Authorization codes and pending consents are ephemeral: they live in
 * the shared state with their TTL, not here.
 */

/**
 * What a member may do in their workspace: `owner` and `operator` change
 * everything in the console (owners members too), `viewer` sees everything
 * but secrets and changes nothing, `member` signs in on the consent pages only.
 */
export const MEMBER_ROLES = ['owner', 'operator', 'viewer', 'member'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** A person who signs in on the consent page; names are unique across workspaces. */
export interface Member {
  id: string;
  workspaceId: string;
  name: string;
  role: MemberRole;
  createdAt: string;
  updatedAt: string;
}

/**
 * How a tool call refused `insufficient_scope` is answered to a client, so it
 * can step up: `http`, HTTP 403 with `WWW-Authenticate` (MCP's authorization,
 * the SDKs' clients); `result`, an `isError` result carrying the challenge in
 * `_meta["mcp/www_authenticate"]` (OpenAI's Apps SDK, ChatGPT).
 */
export const STEP_UP_FORMS = ['http', 'result'] as const;
export type StepUpForm = (typeof STEP_UP_FORMS)[number];

/** A client registered with `POST /oauth/register` (RFC 7591): public, PKCE only. */
export interface RegisteredClient {
  id: string;
  name: string;
  redirectUris: string[];
  createdAt: string;
  /** The step-up form an operator chose for it; unset: by its redirect URIs (`step-up-form.ts`). */
  stepUp?: StepUpForm | undefined;
}

/** How a machine client authenticates at the token endpoint. */
export const MACHINE_AUTH_METHODS = ['client_secret_basic', 'private_key_jwt'] as const;
export type MachineAuthMethod = (typeof MACHINE_AUTH_METHODS)[number];

/**
 * A client an operator registered for the `client_credentials` grant
 * (`portcullis oauth client add --machine`): no member, no browser. It acts
 * as the agent of its own it was registered with, with that agent's grants.
 */
export interface MachineClient {
  id: string;
  workspaceId: string;
  agentId: string;
  /** The agent's name too. */
  name: string;
  auth: MachineAuthMethod;
  /** `client_secret_basic`: the secret's sha256 (the secret is shown once, never kept). */
  secretHash: string | null;
  /** `private_key_jwt`: where its public keys are published. */
  jwksUri: string | null;
  createdAt: string;
}

export type ConsentStatus = 'active' | 'revoked';

/**
 * One member's consent to one client: created by the first approval, reused
 * (scopes replaced) by the next, so connecting again never piles up agents.
 */
export interface Consent {
  id: string;
  workspaceId: string;
  memberId: string;
  /** A registered client's id, or a Client ID Metadata Document URL. */
  clientId: string;
  clientName: string;
  /** The agent principal the consent's tokens act as. */
  agentId: string;
  scopes: string[];
  status: ConsentStatus;
  createdAt: string;
  updatedAt: string;
  revokedAt: string | null;
}

export type FamilyStatus = 'active' | 'revoked';

/** Every refresh token descended from one authorization code. */
export interface TokenFamily {
  id: string;
  consentId: string;
  clientId: string;
  /** What the code granted: a refresh may narrow within it, never widen. */
  scopes: string[];
  resource: string;
  status: FamilyStatus;
  createdAt: string;
  /** The refresh tokens' lifetime ends here (30 days after the code). */
  expiresAt: string;
  revokedAt: string | null;
}

export type RefreshStatus = 'active' | 'rotated';

/** One refresh token, stored as its sha256: rotated on every use. */
export interface RefreshToken {
  tokenHash: string;
  familyId: string;
  scopes: string[];
  status: RefreshStatus;
  createdAt: string;
}

/** An access-token signing key: its private half sealed under the master key. */
export interface SigningKey {
  kid: string;
  alg: 'ES256' | 'RS256';
  /** The public JWK, as JSON. */
  publicJwk: string;
  /** The private key (PKCS#8 PEM), sealed by the vault. */
  sealedPrivate: string;
  /** The master key id it is sealed under. */
  keyId: string;
  createdAt: string;
  /** Set when a newer key signs: still published until the tokens it signed expire. */
  retiredAt: string | null;
}
