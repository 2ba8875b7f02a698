/**
 * The tables of the durable store, as kysely sees them. One schema for both
 * engines: strings are `text`, times are ISO 8601 `text` (UTC, so they sort
 * and compare as strings), JSON values are `text`, counts are `integer`.
 *
 * `bigint` columns (`audit_events.id`, `revision.value`) come back from
 * PostgreSQL as strings and from SQLite as numbers; readers pass them through
 * `Number`.
 */
import type { ColumnType, Generated, GeneratedAlways } from 'kysely';

export type Engine = 'sqlite' | 'postgres';

/** A `bigint` column: a string from `pg`, a number from better-sqlite3. */
export type Int8 = ColumnType<number | string, number, number>;

export interface WorkspaceTable {
  id: string;
  name: string;
  created_at: string;
  /** Its agents' tools mode unless theirs is set (migration 0013). */
  tools_mode: Generated<string>;
}

export interface AgentTable {
  id: string;
  workspace_id: string;
  name: string;
  key_prefix: string;
  /** sha256 hex of the key; unique across workspaces. */
  key_hash: string;
  status: string;
  created_at: string;
  revoked_at: string | null;
  /** The member an agent a consent made acts for (migration 0012); null for an operator's agent. */
  member_id: string | null;
  /** `direct`, `discovery` or `auto`; null follows the workspace's (migration 0013). */
  tools_mode: string | null;
}

export interface ConnectionTable {
  id: string;
  workspace_id: string;
  name: string;
  provider: string;
  /** JSON object of strings. */
  settings: string;
  status: string;
  health: Generated<string>;
  failure_streak: Generated<number>;
  /** When health was last recorded; not part of the model. */
  health_at: Generated<string | null>;
  created_at: string;
  updated_at: string;
}

export interface CredentialTable {
  workspace_id: string;
  connection_id: string;
  /**
   * NULL for the connection's shared credential. Uniqueness of
   * (connection_id, agent_id, field) is kept by an index on
   * `coalesce(agent_id, '')`, so NULL counts as one value on both engines.
   */
  agent_id: string | null;
  field: string;
  sealed: string;
  key_id: string;
  updated_at: string;
}

export interface GrantTable {
  id: string;
  workspace_id: string;
  agent_id: string;
  connection_id: string;
  scope: string;
  /** JSON array of action names. */
  actions: string;
  credential_mode: string;
  created_at: string;
}

/** A member's grant (migration 0012): what every agent acting for the member may use. */
export interface MemberGrantTable {
  id: string;
  workspace_id: string;
  member_id: string;
  connection_id: string;
  scope: string;
  /** JSON array of action names. */
  actions: string;
  created_at: string;
}

/** A rate-limit override (migration 0014): of one agent or one connection, the other column null. */
export interface RateLimitTable {
  id: string;
  workspace_id: string;
  agent_id: string | null;
  connection_id: string | null;
  per_minute: number;
  burst: number;
  updated_at: string;
}

export interface ActionPolicyTable {
  connection_id: string;
  workspace_id: string;
  action: string;
  classification: string;
  state: string;
  reviewed_hash: string | null;
  current_hash: string;
  updated_at: string;
}

export interface AuditEventTable {
  /** `bigint`: a string from `pg`, a number from better-sqlite3. */
  id: GeneratedAlways<number | string>;
  at: string;
  workspace_id: string | null;
  actor_kind: string;
  actor_id: string | null;
  action: string;
  subject: string | null;
  connection_id: string | null;
  decision: string;
  reason: string | null;
  outcome: string | null;
  upstream_host: string | null;
  /** Where the call went when a development override sent it elsewhere. */
  upstream_address: string | null;
  upstream_status: number | null;
  latency_ms: number | null;
  request_bytes: number | null;
  reply_bytes: number | null;
  argument_hash: string | null;
  /** W3C `traceparent` the agent's request carried (migration 0003). */
  traceparent: string | null;
  /** `discovery` for a call through the discovery tools; null for a direct one (migration 0013). */
  via: string | null;
  /** Whom a call on a member's behalf acted for (migration 0026); null otherwise. */
  delegation: string | null;
  /** The hash chain the event was journalled in (migration 0018); null before it. */
  prev_hash: string | null;
  hash: string | null;
}

/** How much of each audit journal file is in the store (migration 0018). */
export interface AuditJournalFoldTable {
  journal: string;
  /** `bigint`: a string from `pg`, a number from better-sqlite3. */
  folded_bytes: number | string;
}

export interface AdminTokenTable {
  id: string;
  token_hash: string;
  created_at: string;
}

export interface SettingTable {
  key: string;
  value: string;
}

/** A rollup bucket is an hour: the first 13 characters of an ISO timestamp. */
export const ROLLUP_BUCKET_CHARS = 13;

/**
 * The agents' calls summed per time bucket and latency bin (migration 0017),
 * kept with every audit insert: for the whole workspace (`scope` 'workspace',
 * `subject` ''), per connection and per agent (`subject` its id), by the
 * hour (`bucket` the ISO timestamp's first 13 characters).
 */
export interface AuditActivityRollupTable {
  workspace_id: string;
  scope: 'workspace' | 'connection' | 'agent';
  subject: string;
  bucket: string;
  bin: number;
  calls: Int8;
  refusals: Int8;
  errors: Int8;
}

/** One row (`id` 1): bumped by every governance mutation. */
export interface RevisionTable {
  id: number;
  value: Int8;
}

export interface OAuthMemberTable {
  id: string;
  workspace_id: string;
  /** Unique across workspaces: a person signs in by name alone. */
  name: string;
  /** `scrypt$…` (see `runtime/core/identity/oauth-server/passwords.ts`). */
  password_hash: string;
  /** `owner`, `operator`, `viewer` or `member` (migration 0015; `member` by default). */
  role: Generated<string>;
  created_at: string;
  updated_at: string;
}

export interface OAuthClientTable {
  id: string;
  name: string;
  /** JSON array of URLs. */
  redirect_uris: string;
  created_at: string;
  /** `http` or `result`, as an operator chose; null: by its redirect URIs (migration 0019). */
  step_up: string | null;
}

/** A machine client (migration 0025): its agent, and how it authenticates. */
export interface OAuthMachineClientTable {
  id: string;
  workspace_id: string;
  agent_id: string;
  name: string;
  auth_method: string;
  /** sha256 of the secret (`client_secret_basic`); the secret is never stored. */
  secret_hash: string | null;
  jwks_uri: string | null;
  created_at: string;
}

/** A JWT's `jti` seen at the token endpoint, until the JWT expires (migration 0025). */
export interface OAuthAssertionJtiTable {
  jti_key: string;
  expires_at: string;
}

export interface OAuthConsentTable {
  id: string;
  workspace_id: string;
  member_id: string;
  client_id: string;
  client_name: string;
  agent_id: string;
  /** JSON array of scopes. */
  scopes: string;
  status: string;
  created_at: string;
  updated_at: string;
  revoked_at: string | null;
}

export interface OAuthTokenFamilyTable {
  id: string;
  consent_id: string;
  client_id: string;
  scopes: string;
  resource: string;
  status: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

export interface OAuthRefreshTokenTable {
  /** sha256 hex of the token. */
  token_hash: string;
  family_id: string;
  scopes: string;
  status: string;
  created_at: string;
}

export interface OAuthSigningKeyTable {
  kid: string;
  alg: string;
  public_jwk: string;
  sealed_private: string;
  key_id: string;
  created_at: string;
  retired_at: string | null;
}

export interface RemoteEndpointTable {
  connection_id: string;
  workspace_id: string;
  url: string;
  transport: string | null;
  revision: string | null;
  auth_kind: string;
  /** JSON array of header names (never their values). */
  header_names: string;
  /** JSON object, or null before a server answered. */
  server_info: string | null;
  /** JSON `{ prompts, resources, completions }`: what the server serves beyond tools; null until a discovery told. */
  features: string | null;
  draft: string | null;
  /** JSON object: tool name → class the operator chose. */
  classification_overrides: string;
  /** When the tool list is to be discovered again (the server's `ttlMs`); null: never on its own. */
  tools_expire_at: string | null;
  /** JSON: what OAuth discovery found (issuer, resource, scopes, metadata) and the omit-resource switch; null unless `oauth`. */
  oauth: string | null;
  updated_at: string;
}

export interface RemoteToolTable {
  connection_id: string;
  workspace_id: string;
  name: string;
  /** JSON of the tool's contract (name, title, description, schemas, annotations). */
  contract: string;
  contract_hash: string;
  classification: string;
  classification_rule: string;
  discovered_at: string;
  /** JSON of the contract last reviewed (with its hash and since when it changed), while a change waits for review. */
  changed_from: string | null;
}

export interface RemoteFeatureTable {
  connection_id: string;
  workspace_id: string;
  /** `prompt`, `resource` or `template`. */
  kind: string;
  /** The action its policy is kept under (`prompt:<name>`, `resource:<uri>`, `template:<uriTemplate>`). */
  key: string;
  /** JSON of what an agent reads of it (a prompt's name, title, description and arguments; a resource's uri, name, title, description, mimeType). */
  contract: string;
  contract_hash: string;
  discovered_at: string;
  /** JSON of the contract last reviewed (with its hash and since when it changed), while a change waits for review. */
  changed_from: string | null;
}

export interface UpstreamOAuthClientTable {
  connection_id: string;
  workspace_id: string;
  issuer: string;
  resource: string;
  redirect_uri: string;
  client_id: string;
  source: string;
  auth_method: string;
  sealed_secret: string | null;
  key_id: string | null;
  obtained_at: string;
  secret_expires_at: string | null;
}

export interface UpstreamOAuthTokenTable {
  connection_id: string;
  /** '' for the connection's shared credential. */
  agent_id: string;
  workspace_id: string;
  sealed: string | null;
  key_id: string | null;
  sign_in_required: string | null;
  updated_at: string;
}

export interface UpstreamSignInTable {
  state_hash: string;
  workspace_id: string;
  connection_id: string;
  agent_id: string | null;
  actor: string;
  browser_hash: string | null;
  sealed: string;
  key_id: string;
  host: string;
  expires_at: string;
  created_at: string;
}

/** A task an in-process producer works on (migration 0021); its JSON columns are text. */
export interface TaskTable {
  ref: string;
  purpose: string;
  workspace_id: string;
  agent_id: string;
  connection_id: string;
  action: string;
  status: string;
  status_message: string | null;
  result: string | null;
  error: string | null;
  input_requests: string | null;
  poll_interval_ms: number | null;
  created_at: string;
  last_updated_at: string;
  expires_at: string;
  /** Migration 0028. */
  follows: string | null;
}

/** An OpenID provider members sign in through (migration 0023). */
export interface IdentityProviderTable {
  id: string;
  workspace_id: string;
  name: string;
  issuer: string;
  client_id: string;
  /** The environment variable's name; the secret itself is never stored. */
  client_secret_env: string;
  /** 1: sign-in with this provider only. */
  only: number;
  name_claim: string;
  scopes: string;
  groups_claim: string | null;
  role: string;
  created_at: string;
  /** 1: trusted to issue ID-JAGs (migration 0025). */
  id_jag: number;
}

/** A member's identity at an IdP: the only key an IdP sign-in finds the member by. */
export interface MemberIdentityTable {
  issuer: string;
  subject: string;
  member_id: string;
  provider_name: string;
  created_at: string;
  last_sign_in_at: string;
  refresh_token: string | null;
  /** What the IdP's sign-in gave to act on the member's behalf upstream, sealed (migration 0026). */
  subject_tokens: string | null;
}

export interface GroupMappingTable {
  id: string;
  provider_id: string;
  workspace_id: string;
  group_name: string;
  role: string | null;
  connection_id: string | null;
  scope: string;
  created_at: string;
}

export interface GroupEffectTable {
  member_id: string;
  kind: string;
  target: string;
  grant_id: string | null;
  provider_name: string;
  group_name: string;
  applied_at: string;
}

/** A call held for approval (migration 0022); its arguments are JSON text. */
export interface ApprovalTable {
  id: string;
  workspace_id: string;
  agent_id: string;
  member_id: string | null;
  connection_id: string;
  action: string;
  classification: string;
  arguments_hash: string;
  arguments: string;
  shown_arguments: string;
  state: string;
  task_ref: string | null;
  decided_by: string | null;
  decided_at: string | null;
  reason: string | null;
  created_at: string;
  expires_at: string;
  executed_at: string | null;
  call_context: string | null;
  delivered_at: string | null;
}

export interface Database {
  workspaces: WorkspaceTable;
  agents: AgentTable;
  connections: ConnectionTable;
  credentials: CredentialTable;
  grants: GrantTable;
  member_grants: MemberGrantTable;
  rate_limits: RateLimitTable;
  action_policies: ActionPolicyTable;
  audit_events: AuditEventTable;
  audit_activity_rollup: AuditActivityRollupTable;
  audit_journal_folds: AuditJournalFoldTable;
  admin_tokens: AdminTokenTable;
  settings: SettingTable;
  revision: RevisionTable;
  oauth_members: OAuthMemberTable;
  oauth_clients: OAuthClientTable;
  oauth_machine_clients: OAuthMachineClientTable;
  oauth_assertion_jtis: OAuthAssertionJtiTable;
  oauth_consents: OAuthConsentTable;
  oauth_token_families: OAuthTokenFamilyTable;
  oauth_refresh_tokens: OAuthRefreshTokenTable;
  oauth_signing_keys: OAuthSigningKeyTable;
  remote_endpoints: RemoteEndpointTable;
  remote_tools: RemoteToolTable;
  remote_features: RemoteFeatureTable;
  upstream_oauth_clients: UpstreamOAuthClientTable;
  upstream_oauth_tokens: UpstreamOAuthTokenTable;
  upstream_sign_ins: UpstreamSignInTable;
  tasks: TaskTable;
  identity_providers: IdentityProviderTable;
  member_identities: MemberIdentityTable;
  idp_group_mappings: GroupMappingTable;
  idp_member_effects: GroupEffectTable;
  approvals: ApprovalTable;
}
