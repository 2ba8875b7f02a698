/**
 * What the governance core needs from durable storage. Two implementations
 * share one schema and one migration set (`runtime/adapters/sql/`): embedded SQLite
 * (better-sqlite3, WAL) and PostgreSQL; one contract suite runs against both.
 *
 * Rules every implementation keeps:
 * - Every mutation of governance rows (everything but the audit log,
 *   connection health, upstream sign-ins and tasks) bumps `revision()` in the same transaction, so a
 *   process can cache what it read and notice any change, from this process,
 *   the `portcullis` command or another replica.
 * - Unique and foreign-key violations become `GatewayError('conflict' |
 *   'not_found', ...)` naming the field; nothing is half-written.
 * - The audit log is append-only: there is no update or delete.
 */

import type { Approval, ApprovalChange, ApprovalState } from '../model/approvals.ts';
import type { AuditActivityQuery, AuditActivityRow } from '../model/audit-activity.ts';
import type {
  ActionPolicy,
  Agent,
  AuditEvent,
  AuditQuery,
  ChainedAuditEvent,
  Connection,
  ConnectionHealth,
  ConnectionStatus,
  Grant,
  MemberGrant,
  NewAuditEvent,
  PolicyState,
  SealedCredential,
  ToolsMode,
  Workspace,
} from '../model/governance.ts';
import type {
  GroupEffect,
  GroupMapping,
  IdentityProvider,
  MemberIdentity,
} from '../model/identity.ts';
import type {
  Consent,
  MachineClient,
  Member,
  MemberRole,
  RefreshToken,
  RegisteredClient,
  SigningKey,
  StepUpForm,
  TokenFamily,
} from '../model/oauth.ts';
import type { RateLimitOverride, RateLimitSubject } from '../model/rate-limits.ts';
import type { RemoteEndpoint, RemoteFeature, RemoteTool } from '../model/remote.ts';
import type { StoredClient, StoredSignIn, StoredTokens } from '../model/sign-in.ts';
import type { TaskChange, TaskRecord, TaskRecordStatus } from '../model/tasks.ts';

export interface Store {
  /**
   * Runs `work` in one transaction: all its writes land, or none. Inside a
   * transaction, `work` is part of it, and its writes are undone when it
   * throws (the outer work may catch that and go on).
   */
  transaction<T>(work: (store: Store) => Promise<T>): Promise<T>;
  /** Increases with every governance mutation. */
  revision(): Promise<number>;
  close(): Promise<void>;

  readonly workspaces: WorkspaceRows;
  readonly agents: AgentRows;
  readonly connections: ConnectionRows;
  readonly credentials: CredentialRows;
  readonly grants: GrantRows;
  /** Members' grants (migration 0012): what the agents acting for a member may use. */
  readonly memberGrants: MemberGrantRows;
  readonly policies: PolicyRows;
  /** Rate-limit overrides (migration 0014). */
  readonly rateLimits: RateLimitRows;
  readonly audit: AuditRows;
  readonly adminTokens: AdminTokenRows;
  readonly settings: SettingRows;
  /** The authorization server's rows (migration 0005). */
  readonly oauth: OAuthRows;
  readonly remoteEndpoints: RemoteEndpointRows;
  readonly remoteTools: RemoteToolRows;
  readonly remoteFeatures: RemoteFeatureRows;
  /** Signing in to remote MCP servers (migration 0007): none of it is governance. */
  readonly upstreamOAuth: UpstreamOAuthRows;
  /** Tasks of the tasks extension that an in-process producer works on (migration 0021): not governance. */
  readonly tasks: TaskRows;
  readonly identity: IdentityRows;
  /** Calls held for approval (migration 0022): not governance. */
  readonly approvals: ApprovalRows;
}

/** What the same call is: its agent, connection, action and arguments' hash. */
export interface ApprovalKey {
  agentId: string;
  connectionId: string;
  action: string;
  argumentsHash: string;
}

/**
 * Calls held for approval (`core/model/approvals.ts`). `change` is the one
 * way a state moves: a compare-and-set on the state (and, unless expiring,
 * on `expiresAt` being later than `now`), so of two replicas that approve,
 * deny or run the same approval, one wins.
 */
export interface ApprovalRows {
  create(approval: Approval): Promise<void>;
  byId(id: string): Promise<Approval | undefined>;
  /** The approval a held call's task stands for. */
  byTaskRef(taskRef: string): Promise<Approval | undefined>;
  /** The workspace's approvals (of `states`, when given), newest first, `limit` at most. */
  list(
    workspaceId: string,
    states: readonly ApprovalState[] | undefined,
    limit: number,
  ): Promise<Approval[]>;
  /** How many of the workspace's are pending at `now`. */
  countPending(workspaceId: string, now: string): Promise<number>;
  /** The newest approval of this same call in one of `states`, live at `now` (unless `now` is undefined). */
  latestFor(
    key: ApprovalKey,
    states: readonly ApprovalState[],
    now: string | undefined,
  ): Promise<Approval | undefined>;
  /** Applies `change` if the approval is in one of `from` (and live at `now`, unless `now` is undefined): true when it did. */
  change(
    id: string,
    from: readonly ApprovalState[],
    change: ApprovalChange,
    now: string | undefined,
  ): Promise<boolean>;
  /**
   * Marks an executed approval's result, or the refusal of a denied one or
   * one expired by `at` (pending or approved past its time, or `expired`),
   * given to its agent: true for the first to mark it.
   */
  deliver(id: string, at: string): Promise<boolean>;
  /** Pending or approved ones whose time ran out before `now` (the sweep expires them). */
  overdue(now: string, limit: number): Promise<Approval[]>;
  /** Deletes the ones settled before `before`; answers how many. */
  prune(before: string): Promise<number>;
}

/**
 * The tasks an in-process producer works on (`core/tasks/recorded-tasks.ts`),
 * by their `ref`. A task past `expiresAt` is found by nothing; a task in a
 * terminal status (`completed`, `failed`, `cancelled`) never changes again.
 */
export interface TaskRows {
  create(task: TaskRecord): Promise<void>;
  /** The task, unless it expired before `now` (ISO 8601). */
  byRef(ref: string, now: string): Promise<TaskRecord | undefined>;
  /**
   * Applies `change` if the task is live at `now` and in one of `from`: true
   * when it did. Of concurrent changes from the same status, one wins.
   */
  change(
    ref: string,
    from: readonly TaskRecordStatus[],
    change: TaskChange,
    now: string,
  ): Promise<boolean>;
  /** Deletes the tasks that expired before `before`; answers how many. */
  prune(before: string): Promise<number>;
}

export interface WorkspaceRows {
  /** `conflict` (field `name`) when the name is taken. */
  create(workspace: Workspace): Promise<void>;
  list(): Promise<Workspace[]>;
  byId(id: string): Promise<Workspace | undefined>;
  byName(name: string): Promise<Workspace | undefined>;
  /** Sets its agents' default tools mode; false when there is no such workspace. */
  setToolsMode(id: string, mode: ToolsMode): Promise<boolean>;
}

export interface AgentRows {
  /** `keyHash` is the sha256 hex of the key; unique. `conflict` (field `name`) within a workspace. */
  create(agent: Agent, keyHash: string): Promise<void>;
  list(workspaceId: string): Promise<Agent[]>;
  byId(workspaceId: string, id: string): Promise<Agent | undefined>;
  byKeyHash(keyHash: string): Promise<Agent | undefined>;
  /** Every agent of every workspace (for the in-memory principal cache). */
  all(): Promise<Array<Agent & { keyHash: string }>>;
  revoke(workspaceId: string, id: string, at: string): Promise<boolean>;
  /** Sets the agent's own tools mode (null: its workspace's); false when there is no such agent. */
  setToolsMode(workspaceId: string, id: string, mode: ToolsMode | null): Promise<boolean>;
  /** A new key for an active agent: the old one's hash is gone, so it is refused at once. */
  replaceKey(workspaceId: string, id: string, keyPrefix: string, keyHash: string): Promise<boolean>;
  /** The agent with its grants, personal credentials and consents (on delete cascade); the audit log stays. */
  remove(workspaceId: string, id: string): Promise<boolean>;
}

export interface ConnectionRows {
  /** `conflict` (field `name`) when the name is taken in the workspace. */
  create(connection: Connection): Promise<void>;
  list(workspaceId: string): Promise<Connection[]>;
  all(): Promise<Connection[]>;
  byId(workspaceId: string, id: string): Promise<Connection | undefined>;
  byName(workspaceId: string, name: string): Promise<Connection | undefined>;
  update(
    workspaceId: string,
    id: string,
    change: { settings?: Record<string, string>; status?: ConnectionStatus; updatedAt: string },
  ): Promise<boolean>;
  /** Health is not a governance change: it does not bump the revision. */
  recordHealth(
    id: string,
    health: ConnectionHealth,
    failureStreak: number,
    at: string,
  ): Promise<void>;
  /** Removes the connection with its credentials, grants and policies. */
  remove(workspaceId: string, id: string): Promise<boolean>;
}

export interface CredentialRows {
  /** Inserts or replaces the field's sealed value. */
  put(credential: SealedCredential): Promise<void>;
  /** The connection's fields for the agent (`null`: the shared credential). */
  forConnection(connectionId: string, agentId: string | null): Promise<SealedCredential[]>;
  /** Every sealed credential of the workspace, shared and personal (what replies are redacted of). */
  forWorkspace(workspaceId: string): Promise<SealedCredential[]>;
  /** Every sealed credential (for a master key rotation). */
  all(): Promise<SealedCredential[]>;
  remove(connectionId: string, agentId: string | null): Promise<number>;
}

export interface GrantRows {
  /** One grant per agent and connection: `conflict` (field `agent`) when one exists. */
  create(grant: Grant): Promise<void>;
  list(workspaceId: string): Promise<Grant[]>;
  all(): Promise<Grant[]>;
  forAgent(agentId: string): Promise<Grant[]>;
  remove(workspaceId: string, id: string): Promise<boolean>;
}

export interface MemberGrantRows {
  /** One grant per member and connection: `conflict` (field `member`) when one exists. */
  create(grant: MemberGrant): Promise<void>;
  list(workspaceId: string): Promise<MemberGrant[]>;
  all(): Promise<MemberGrant[]>;
  forMember(memberId: string): Promise<MemberGrant[]>;
  remove(workspaceId: string, id: string): Promise<boolean>;
}

export interface RateLimitRows {
  /** Sets the override of its agent or connection, replacing any (the row's id is kept then). */
  set(limit: RateLimitOverride): Promise<void>;
  list(workspaceId: string): Promise<RateLimitOverride[]>;
  all(): Promise<RateLimitOverride[]>;
  /** Removes the override of one agent or connection: true when there was one. */
  clear(workspaceId: string, subject: RateLimitSubject, subjectId: string): Promise<boolean>;
}

export interface PolicyRows {
  /** Inserts or replaces the row for (connection, action). */
  put(policy: ActionPolicy): Promise<void>;
  putMany(policies: ActionPolicy[]): Promise<void>;
  forConnection(connectionId: string): Promise<ActionPolicy[]>;
  all(): Promise<ActionPolicy[]>;
  get(connectionId: string, action: string): Promise<ActionPolicy | undefined>;
  setState(
    connectionId: string,
    action: string,
    change: { state: PolicyState; reviewedHash?: string | null; updatedAt: string },
  ): Promise<boolean>;
}

/** A stored event with the chain it was journalled in. */
export interface StoredChainLink {
  id: number;
  event: NewAuditEvent;
  prevHash: string | null;
  hash: string | null;
}

export interface AuditRows {
  /** Appends an event; an agent's call is added to the activity sums in the same transaction. */
  append(event: NewAuditEvent): Promise<number>;
  /**
   * Appends events in order: up to 500 in one statement (all land or none, with their
   * activity sums), more in several.
   */
  appendMany(events: readonly NewAuditEvent[]): Promise<void>;
  /**
   * The audit journal's fold: events with their hash chain, and how much of
   * the journal file they come from is now stored, in one transaction.
   */
  appendChained(
    records: readonly ChainedAuditEvent[],
    fold?: { journal: string; foldedBytes: number },
  ): Promise<void>;
  /** How many bytes of a journal file are in the store (0 for one never folded). */
  foldedBytes(journal: string): Promise<number>;
  /** Events after `afterId`, oldest first, with their chain (null before migration 0018). */
  chain(query: { afterId?: number; limit: number }): Promise<StoredChainLink[]>;
  /** Which of `hashes` an event stored before `beforeId` has. */
  storedHashes(hashes: readonly string[], beforeId: number): Promise<Set<string>>;
  /** The newest chained event's id and hash. */
  head(): Promise<{ id: number; hash: string } | undefined>;
  query(query: AuditQuery): Promise<AuditEvent[]>;
  /**
   * Agents' calls summed per time bucket and latency bin, in the store (never row by row
   * here): the same as summing the log, from sums kept as it is written.
   */
  activity(query: AuditActivityQuery): Promise<AuditActivityRow[]>;
}

export interface AdminTokenRows {
  create(id: string, tokenHash: string, at: string): Promise<void>;
  byHash(tokenHash: string): Promise<{ id: string } | undefined>;
  /** Every admin token (never its hash), oldest first. */
  list(): Promise<Array<{ id: string; createdAt: string }>>;
  /** Revokes the token: its next request is refused. */
  remove(id: string): Promise<boolean>;
  count(): Promise<number>;
}

/** Small named values the gateway keeps (e.g. the default workspace id). */
export interface SettingRows {
  get(key: string): Promise<string | undefined>;
  /**
   * The value, held against a writer of it until the transaction ends
   * (PostgreSQL `for share`; SQLite's transactions hold the write lock from
   * their start): a seal made in the same transaction under the key it names
   * cannot miss a master key rotation running at the same time.
   */
  getHeld(key: string): Promise<string | undefined>;
  put(key: string, value: string): Promise<void>;
}

export interface OAuthRows {
  readonly members: MemberRows;
  readonly clients: ClientRows;
  readonly machineClients: MachineClientRows;
  readonly assertionJtis: AssertionJtiRows;
  readonly consents: ConsentRows;
  readonly tokens: TokenRows;
  readonly signingKeys: SigningKeyRows;
}

/** The company's OpenID providers and the identities members are known by at them (migration 0023). */
export interface IdentityRows {
  /** `conflict` (field `name`, or `issuer`) when the name or the issuer is taken. */
  addProvider(provider: IdentityProvider): Promise<void>;
  /** Every provider, of every workspace, by name. */
  providers(): Promise<IdentityProvider[]>;
  providerByName(name: string): Promise<IdentityProvider | undefined>;
  /** Removes the provider; the identities it made stay with their members. */
  removeProvider(id: string): Promise<boolean>;
  /** The identity (`iss`, `sub`) and the member it is, if a sign-in made it. */
  identity(issuer: string, subject: string): Promise<MemberIdentity | undefined>;
  /** `conflict` when the identity exists already (two sign-ins at once). */
  addIdentity(identity: MemberIdentity): Promise<void>;
  signedIn(issuer: string, subject: string, at: string): Promise<void>;
  /** The IdP's refresh token of an identity, sealed (null: none kept). */
  refreshToken(issuer: string, subject: string): Promise<string | null>;
  setRefreshToken(issuer: string, subject: string, sealed: string | null): Promise<void>;
  /** Keeps (null: forgets) what an identity's sign-in gave to act on its member's behalf, sealed. */
  setSubjectTokens(issuer: string, subject: string, sealed: string | null): Promise<void>;
  /** The sealed subject tokens of the member's identity that signed in last, if any kept them. */
  latestSubjectTokens(
    memberId: string,
  ): Promise<{ issuer: string; subject: string; sealed: string } | undefined>;
  /** A member's identities (removed with the member). */
  identitiesOf(memberId: string): Promise<MemberIdentity[]>;
  addMapping(mapping: GroupMapping): Promise<void>;
  /** A provider's group mappings, by group. */
  mappings(providerId: string): Promise<GroupMapping[]>;
  removeMapping(id: string): Promise<boolean>;
  /** What a member's groups gave them. */
  effectsOf(memberId: string): Promise<GroupEffect[]>;
  putEffect(effect: GroupEffect): Promise<void>;
  removeEffect(memberId: string, kind: GroupEffect['kind'], target: string): Promise<void>;
}

export interface MemberRows {
  /** `conflict` (field `name`) when the name is taken in any workspace. */
  create(member: Member, passwordHash: string): Promise<void>;
  list(workspaceId: string): Promise<Member[]>;
  /** The member and its password hash (sign-in only). */
  byName(name: string): Promise<(Member & { passwordHash: string }) | undefined>;
  byId(id: string): Promise<Member | undefined>;
  setPassword(id: string, passwordHash: string, at: string): Promise<boolean>;
  setRole(id: string, role: MemberRole, at: string): Promise<boolean>;
  /**
   * Marks the member changed at `at` (`updatedAt`); false for no such member.
   * A governance change (it bumps the revision), so every replica reads
   * again what it cached for the member (the upstream tokens exchanged for
   * them) at its next request.
   */
  touch(id: string, at: string): Promise<boolean>;
  /** Removes the member with its consents and their token families. */
  remove(id: string): Promise<boolean>;
}

export interface ClientRows {
  /** Registration is not a governance change: it grants nothing and does not bump the revision. */
  create(client: RegisteredClient): Promise<void>;
  byId(id: string): Promise<RegisteredClient | undefined>;
  /**
   * Sets (or, undefined, unsets) the client's step-up form; false for no such
   * client. A governance change (it bumps the revision), so every replica's
   * remembered access-token verdicts take the new form at their next request.
   */
  setStepUp(id: string, stepUp: StepUpForm | undefined): Promise<boolean>;
  /**
   * Deletes the clients that hold no active consent and no live token
   * family (active, not expired at `now`) and either were registered before
   * `unapprovedBefore` and never had a consent, or were registered before
   * `unusedBefore` and have no consent changed since; answers how many. Not
   * a governance change: a client that is gone is an unknown one.
   */
  prune(cutoffs: ClientPruneCutoffs): Promise<number>;
}

/** Machine clients (migration 0025); each is removed with its agent. */
export interface MachineClientRows {
  /** A governance change: the client's tokens are checked against it. */
  create(client: MachineClient): Promise<void>;
  byId(id: string): Promise<MachineClient | undefined>;
  /** A workspace's machine clients, by name. */
  list(workspaceId: string): Promise<MachineClient[]>;
}

/** The `jti`s of JWTs the token endpoint took, until they expire (no Redis: the replicas share these). */
export interface AssertionJtiRows {
  /**
   * Records `key` until `expiresAt`; false when it is recorded already and
   * not expired (a replay). Deletes the expired ones on the way.
   */
  record(key: string, expiresAt: string, now: string): Promise<boolean>;
  /**
   * Deletes `key` if it is the record `record` made (its `expiresAt`): the
   * JWT it stood for may be presented again (no token came of it).
   */
  forget(key: string, expiresAt: string): Promise<void>;
}

export interface ClientPruneCutoffs {
  unapprovedBefore: string;
  unusedBefore: string;
  now: string;
}

export interface ConsentRows {
  /** Inserts, or replaces the scopes and status of, the member's consent to the client. */
  put(consent: Consent): Promise<void>;
  byId(id: string): Promise<Consent | undefined>;
  byMemberAndClient(memberId: string, clientId: string): Promise<Consent | undefined>;
  /** A workspace's consents, by member and client. */
  list(workspaceId: string): Promise<Consent[]>;
  /** Revokes the consent and every token family it has. */
  revoke(id: string, at: string): Promise<boolean>;
}

export interface TokenRows {
  /** A new family with its first refresh token. */
  start(family: TokenFamily, first: RefreshToken): Promise<void>;
  /** The refresh token with that hash, and its family. */
  byHash(tokenHash: string): Promise<{ token: RefreshToken; family: TokenFamily } | undefined>;
  family(id: string): Promise<TokenFamily | undefined>;
  /**
   * Marks `tokenHash` rotated and stores `next` in its family, when it was
   * still active: false when it was not (it was used already, concurrently or before).
   */
  rotate(tokenHash: string, next: RefreshToken): Promise<boolean>;
  /** Revokes a family: its refresh tokens and access tokens stop working. */
  revokeFamily(id: string, at: string): Promise<boolean>;
  /**
   * Deletes the families that expired, or were revoked, before `before`,
   * with every refresh token they had; answers how many. Not a governance
   * change: a family that is gone refuses its tokens as a revoked one does.
   */
  prune(before: string): Promise<number>;
}

export interface SigningKeyRows {
  create(key: SigningKey): Promise<void>;
  /** Every key, newest first. */
  list(): Promise<SigningKey[]>;
  retire(kid: string, at: string): Promise<boolean>;
  /**
   * Deletes a key, private half and all: what it signed is trusted nowhere
   * from now on. A governance change (it bumps the revision), so every
   * process checks the tokens it had accepted again.
   */
  remove(kid: string): Promise<boolean>;
  /** Replaces a key's sealed private half (a master key rotation). */
  reseal(kid: string, sealedPrivate: string, keyId: string): Promise<void>;
}

/** The endpoint record of each remote MCP connection (one per connection). */
export interface RemoteEndpointRows {
  /** Inserts or replaces the connection's record; `not_found` (field `connection`) without one. */
  put(endpoint: RemoteEndpoint): Promise<void>;
  byConnection(connectionId: string): Promise<RemoteEndpoint | undefined>;
  all(): Promise<RemoteEndpoint[]>;
}

/** The tool list pinned at a remote connection's last discovery. */
export interface RemoteToolRows {
  /** Replaces the connection's whole list, in one transaction. */
  replace(
    connection: Pick<Connection, 'id' | 'workspaceId'>,
    tools: readonly RemoteTool[],
  ): Promise<void>;
  /** By name. */
  forConnection(connectionId: string): Promise<RemoteTool[]>;
  /** Every pinned tool, by connection id and name. */
  all(): Promise<RemoteTool[]>;
}

/** The prompts, resources and resource templates pinned at a remote connection's last discovery. */
export interface RemoteFeatureRows {
  /** Replaces the connection's whole list, in one transaction. */
  replace(
    connection: Pick<Connection, 'id' | 'workspaceId'>,
    features: readonly RemoteFeature[],
  ): Promise<void>;
  /** By key. */
  forConnection(connectionId: string): Promise<RemoteFeature[]>;
  /** Every pinned feature, by connection id and key. */
  all(): Promise<RemoteFeature[]>;
}

/** Signing in to remote MCP servers: clients, each credential's tokens, pending sign-ins. */
export interface UpstreamOAuthRows {
  readonly clients: UpstreamClientRows;
  readonly tokens: UpstreamTokenRows;
  readonly signIns: UpstreamSignInRows;
}

export interface UpstreamClientRows {
  /** Inserts or replaces the connection's client. */
  put(client: StoredClient): Promise<void>;
  byConnection(connectionId: string): Promise<StoredClient | undefined>;
  remove(connectionId: string): Promise<boolean>;
  /** Every client with a sealed secret (for a master key rotation). */
  sealed(): Promise<StoredClient[]>;
  /** Replaces the sealed secret if it still is `from` (a master key rotation); false when it changed. */
  reseal(connectionId: string, from: string, to: Resealed): Promise<boolean>;
}

export interface UpstreamTokenRows {
  /** Inserts or replaces the credential's row. */
  put(tokens: StoredTokens): Promise<void>;
  get(connectionId: string, agentId: string | null): Promise<StoredTokens | undefined>;
  /** Every credential's row of the connection (shared first, then by agent id). */
  forConnection(connectionId: string): Promise<StoredTokens[]>;
  /** Every row of the workspace that holds sealed tokens (what replies are redacted of). */
  forWorkspace(workspaceId: string): Promise<StoredTokens[]>;
  /** Every row that holds sealed tokens (for a master key rotation). */
  sealed(): Promise<StoredTokens[]>;
  /** Replaces the sealed tokens if they still are `from` (a master key rotation); false when they changed. */
  reseal(
    connectionId: string,
    agentId: string | null,
    from: string,
    to: Resealed,
  ): Promise<boolean>;
}

export interface UpstreamSignInRows {
  create(signIn: StoredSignIn): Promise<void>;
  byState(stateHash: string): Promise<StoredSignIn | undefined>;
  /** Binds the sign-in to the browser that opened its link: only once (false when it was bound already). */
  bindBrowser(stateHash: string, browserHash: string): Promise<boolean>;
  /** Deletes and answers the sign-in in one step: of concurrent takes, exactly one gets it. */
  take(stateHash: string): Promise<StoredSignIn | undefined>;
  /** Deletes the sign-ins that expired before `before`; answers how many. */
  prune(before: string): Promise<number>;
  /** The workspace's sign-ins that expire after `after`, oldest first (what the caps count). */
  liveIn(workspaceId: string, after: string): Promise<StoredSignIn[]>;
  /** Every pending sign-in (for a master key rotation). */
  all(): Promise<StoredSignIn[]>;
  /** Replaces the sealed sign-in if it still is `from` (a master key rotation); false when it changed. */
  reseal(stateHash: string, from: string, to: Resealed): Promise<boolean>;
}

/** A secret sealed again under the current master key, and that key's id. */
export interface Resealed {
  sealed: string;
  keyId: string;
}
