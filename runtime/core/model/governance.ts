/**
 * The governance model: the rows every decision reads. Every row belongs to
 * one workspace; nothing crosses. Times are ISO 8601 strings (UTC).
 */
import type { Classification } from '../../../generated/catalog-format.ts';

export interface Workspace {
  id: string;
  name: string;
  createdAt: string;
  /** How its agents are served their tools unless an agent says otherwise (`direct` until set). */
  toolsMode: ToolsMode;
}

/**
 * How an agent is served its tools: `direct`, every action it may call as a
 * tool; `discovery`, the three discovery tools (`search_actions`,
 * `describe_action`, `call_action`) instead; `auto`, discovery once it may
 * call more tools than the configured threshold.
 */
export type ToolsMode = 'direct' | 'discovery' | 'auto';
export const TOOLS_MODES: readonly ToolsMode[] = ['direct', 'discovery', 'auto'];

export type AgentStatus = 'active' | 'revoked';

export interface Agent {
  id: string;
  workspaceId: string;
  name: string;
  /** The first characters of the key, to tell keys apart in lists; never enough to use. */
  keyPrefix: string;
  status: AgentStatus;
  createdAt: string;
  revokedAt: string | null;
  /**
   * The member this agent acts for: an agent a consent made (one per member
   * and client) uses the member's grants too. Null for an operator's agent.
   */
  memberId: string | null;
  /** Its own tools mode; null follows its workspace's (a member's OAuth client does, until set). */
  toolsMode: ToolsMode | null;
}

/** `pending` until the provider's verify action succeeds with the credential. */
export type ConnectionStatus = 'pending' | 'active' | 'disabled';
export type ConnectionHealth = 'unknown' | 'ok' | 'degraded' | 'error';

export interface Connection {
  id: string;
  workspaceId: string;
  /** Unique in the workspace; the tool namespace (`<name>__<action>` when it is not the provider's id). */
  name: string;
  /** The catalog's provider id (`unikraft`, ...). */
  provider: string;
  /** Non-secret settings such as the default metro. */
  settings: Record<string, string>;
  status: ConnectionStatus;
  health: ConnectionHealth;
  /** Consecutive transport failures or 5xx replies; a success resets it. */
  failureStreak: number;
  createdAt: string;
  updatedAt: string;
}

/** One sealed credential field; `agentId` set for an agent's personal credential. */
export interface SealedCredential {
  workspaceId: string;
  connectionId: string;
  agentId: string | null;
  /** The auth field's name from the manifest (`token`, ...). */
  field: string;
  /** `v1.<key id>.<iv>.<ciphertext>.<tag>`; see `runtime/core/vault/sealed-secret.ts`. */
  sealed: string;
  keyId: string;
  updatedAt: string;
}

/** All actions, reads only, or the listed actions. */
export type GrantScope = 'all' | 'reads' | 'actions';
/** Whose credential goes with the call: the connection's shared one, or the agent's own. */
export type CredentialMode = 'shared' | 'personal';

export interface Grant {
  id: string;
  workspaceId: string;
  agentId: string;
  connectionId: string;
  scope: GrantScope;
  /** The action names when `scope` is `actions`; empty otherwise. */
  actions: string[];
  credentialMode: CredentialMode;
  createdAt: string;
}

/**
 * A member's grant on a connection: every agent acting for the member (one
 * per client the member approved) may use it, narrowed by the scopes that
 * client was approved. Always with the connection's shared credential.
 */
export interface MemberGrant {
  id: string;
  workspaceId: string;
  memberId: string;
  connectionId: string;
  scope: GrantScope;
  /** The action names when `scope` is `actions`; empty otherwise. */
  actions: string[];
  createdAt: string;
}

/**
 * `retired`: the action left the catalog. `ask`: on, but each call is held
 * until an owner or operator approves it (docs/approvals.md).
 */
export type PolicyState = 'enabled' | 'ask' | 'disabled' | 'quarantined' | 'retired';

export interface ActionPolicy {
  connectionId: string;
  workspaceId: string;
  action: string;
  classification: Classification;
  state: PolicyState;
  /** The contract hash an operator (or the defaults) approved; a call with another is blocked. */
  reviewedHash: string | null;
  /** The contract hash in the catalog loaded last. */
  currentHash: string;
  updatedAt: string;
}

/** `member`: a person signed in on the authorization server's consent page. */
export type AuditActorKind = 'agent' | 'operator' | 'member' | 'system';
export type AuditDecision = 'allowed' | 'denied';
export type AuditOutcome = 'ok' | 'error';

export interface AuditEvent {
  /** Assigned by the store, increasing. */
  id: number;
  at: string;
  workspaceId: string | null;
  actorKind: AuditActorKind;
  actorId: string | null;
  /** A tool name, or an operator verb such as `agent.create`. */
  action: string;
  /** What an operator verb acted on (an agent, a connection's actions, ...); null for tool calls. */
  subject: string | null;
  connectionId: string | null;
  decision: AuditDecision;
  /** A `ReasonCode` when denied or failed; null when allowed and ok. */
  reason: string | null;
  outcome: AuditOutcome | null;
  /** The host the call was for (the catalog's host, not a development override). */
  upstreamHost: string | null;
  /**
   * The address the call actually went to (`http://127.0.0.1:4010`) when a
   * development override sent it elsewhere than `upstreamHost`; null otherwise.
   */
  upstreamAddress: string | null;
  /** The provider's HTTP status, when there was one. */
  upstreamStatus: number | null;
  latencyMs: number | null;
  requestBytes: number | null;
  replyBytes: number | null;
  /** sha256 of the canonical JSON of the arguments; never the arguments. */
  argumentHash: string | null;
  /** The W3C trace context (`traceparent`) the agent's request carried, to find the call in traces. */
  traceparent: string | null;
  /**
   * How the call reached the action it names: `discovery` for a
   * `call_action` (and the discovery tools' own searches and descriptions);
   * null for a direct call.
   */
  via: AuditVia | null;
  /**
   * Whom a call made on a member's behalf acted for (issue 35: a call
   * forwarded with a token exchanged for the member's, and every call of an
   * access token issued from an ID-JAG): `member:<id> agent:<id> client:<client id>`,
   * followed by ` idp:<provider>` for the ID-JAG's; null for every other event.
   */
  delegation?: string | null;
}

export type AuditVia = 'discovery';

export type NewAuditEvent = Omit<AuditEvent, 'id'>;

/** An event as the audit journal chains it: the hash of the record before it, and its own. */
export interface ChainedAuditEvent {
  event: NewAuditEvent;
  prevHash: string;
  hash: string;
}

export interface AuditQuery {
  workspaceId?: string;
  actorId?: string;
  action?: string;
  connectionId?: string;
  decision?: AuditDecision;
  /** `ok` or `error`: what a call that was allowed came to. */
  outcome?: 'ok' | 'error';
  reason?: string;
  /**
   * A member's events: those whose actor is one of `actorIds` (the member,
   * the agents their consents made) or whose delegation names `memberId`.
   */
  onBehalfOf?: { memberId: string; actorIds: string[] };
  /** Inclusive ISO time bounds. */
  since?: string;
  until?: string;
  /** Events with a greater id (paging). */
  afterId?: number;
  /** Events with a smaller id (paging newest first: the last id of the page before). */
  beforeId?: number;
  /** Newest first when false (default); oldest first when true. */
  ascending?: boolean;
  limit?: number;
}
