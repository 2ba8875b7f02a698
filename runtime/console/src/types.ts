/** What the console's API answers, as the pages read it (the gateway's operator views). */

export interface RemoteView {
  url: string;
  host: string;
  verified: boolean;
  label: string;
  curated?: { id: string; name: string };
  authKind: string;
  headerNames: string[];
  draft: unknown;
  signIn?: {
    state: string;
    reason?: string;
    issuer?: string;
    onBehalfOf?: { subjectToken: string; audience?: string; idJag?: string };
    clientCredentials?: string;
  };
}

export interface ConnectionSummary {
  connection: {
    id: string;
    name: string;
    provider: string;
    status: 'active' | 'disabled';
    health: 'unknown' | 'ok' | 'degraded' | 'error';
    remote?: RemoteView;
  };
  kind: 'native' | 'curated' | 'remote';
  awaitingReview: number;
  lastError?: { at: string; reason: string | null; action: string };
  /** A remote server's MCP Apps, on or turned off. */
  apps?: 'on' | 'off';
}

export interface TextPart {
  op: '=' | '-' | '+';
  text: string;
}

export interface ContractChange {
  field: string;
  before: unknown;
  after: unknown;
  diff: TextPart[] | Array<{ pointer: string; before?: unknown; after?: unknown }>;
}

export interface ActionView {
  action: string;
  name: string;
  tool: string;
  /** A remote server's prompt, resource or resource template; absent for a tool. */
  kind?: 'prompt' | 'resource' | 'template';
  classification: 'read' | 'write' | 'destructive';
  state: 'enabled' | 'ask' | 'disabled' | 'quarantined' | 'retired';
  review: 'new' | 'changed' | 'retired' | 'reviewed';
  title: string;
  changes?: ContractChange[];
  changedSince?: string;
  /** A remote item's review flags, from its current pinned text (the server's excerpt is hostile). */
  flags?: ReviewFlag[];
  /** An MCP App's page as pinned (every string the server's: hostile). */
  app?: AppReview;
}

/** What an MCP App's page may reach and asks for (`_meta.ui` of its `ui://` resource). */
export interface AppReview {
  contentSha256: string;
  mimeType?: string;
  csp: {
    connectDomains?: string[];
    resourceDomains?: string[];
    frameDomains?: string[];
    baseUriDomains?: string[];
  };
  permissions: string[];
  domain?: string;
}

export interface ReviewFlag {
  rule: string;
  title: string;
  field: string;
  excerpt: string;
}

export interface Agent {
  id: string;
  name: string;
  keyPrefix: string;
  status: 'active' | 'revoked';
  createdAt: string;
  revokedAt: string | null;
  memberId: string | null;
}

export interface AuditEvent {
  id: number;
  at: string;
  actorKind: string;
  actorName: string;
  action: string;
  subject: string | null;
  connectionId: string | null;
  decision: 'allowed' | 'denied';
  outcome: 'ok' | 'error' | null;
  reason: string | null;
  latencyMs: number | null;
  /** A call made on a member's behalf: the delegation chain by name (the client by its id). */
  onBehalfOf?: { member: string; agent: string; client: string | null; idp?: string };
}

export interface AuditPage {
  events: AuditEvent[];
  nextBeforeId: number | null;
}
