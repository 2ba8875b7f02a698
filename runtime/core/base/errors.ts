/**
 * The runtime's one error model: `GatewayError` with a stable reason code from
 * a closed set, and one table that says, per code:
 *
 * - `status`: the HTTP status an API or the MCP transport answers with;
 * - `rpc`: the JSON-RPC error code, when the error is answered as one;
 * - `expose`: whether the message may be shown to the caller;
 * - `audited`: how an event with the code is recorded: `denied` when the
 *   gateway refused the request itself (its caller, its input or the
 *   governance decision), `error` when something failed on the way to the
 *   provider or inside the gateway;
 * - `message`: the public message when the thrower gives none;
 * - `explain`: for a denied tool call, the message that names the one command
 *   that would change the decision;
 * - `challenge`: the `WWW-Authenticate` error parameter, for 401s.
 *
 * Handlers never derive a status, a JSON-RPC code or a message themselves:
 * they throw (or build a reply from) a code. Messages never hold a secret, a
 * token or a credential-bearing URL.
 */
import type { Classification } from '../../../generated/catalog-format.ts';

/** JSON-RPC 2.0's codes, MCP's (2026-07-28 reserves -32020 to -32099) and the legacy transport's. */
export const RpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** The start of JSON-RPC's implementation-defined range: what the legacy transport answers. */
  serverError: -32000,
  /** The legacy transport's unknown session. */
  sessionNotFound: -32001,
  headerMismatch: -32020,
  missingRequiredClientCapability: -32021,
  unsupportedProtocolVersion: -32022,
} as const;

/** What a denied tool call's message may name. */
export interface DeniedCall {
  agent: string;
  connection: string;
  action: string;
  classification: Classification;
  /** The agent's grant on the connection, if it has one. */
  grantScope: 'all' | 'reads' | 'actions' | undefined;
  /** A rate limit the call is over: whose it is, its figures and the wait. */
  limit?: {
    of: 'agent' | 'connection';
    perMinute: number;
    burst: number;
    retryAfterSeconds: number;
  };
}

interface Reason {
  status: number;
  rpc: number;
  expose: boolean;
  audited: 'denied' | 'error';
  message: string;
  explain?: (call: DeniedCall) => string;
  challenge?: 'invalid_token' | 'insufficient_scope';
}

/** The gateway refuses the caller's own request: shown, audited as denied. */
function refused(status: number, message: string, rpc: number = RpcCode.serverError): Reason {
  return { status, rpc, expose: true, audited: 'denied', message };
}

/** Something on the way to (or back from) the provider: shown, audited as an error. */
function failed(status: number, message: string): Reason {
  return { status, rpc: RpcCode.serverError, expose: true, audited: 'error', message };
}

/** A call's connection and action, as the commands that change a decision take them. */
const named = (call: DeniedCall) => `${call.connection} ${call.action}`;

export const REASONS = {
  // Input an operator or an agent sent.
  invalid_input: refused(400, 'the input is not valid'),
  arguments_invalid: refused(400, "the arguments do not match the tool's input schema"),
  server_variable_refused: refused(400, 'a server variable has a value it may not take'),
  path_parameter_refused: refused(400, 'a path parameter would leave its path segment'),
  header_refused: refused(400, 'a header name or value is not allowed'),
  not_found: refused(404, 'not found'),
  conflict: refused(409, 'conflicts with what exists'),
  review_flagged: refused(409, 'flagged for review; read the flags, then approve with force'),

  // Who is calling.
  unauthenticated: {
    ...refused(401, 'Unauthorized'),
    challenge: 'invalid_token',
  },
  /** An access token whose scopes do not cover the action (RFC 6750 §3.1): the client may step up. */
  insufficient_scope: {
    ...refused(403, 'the access token does not carry the scope this action needs'),
    challenge: 'insufficient_scope',
  },
  /**
   * Too many attempts from one address or for one name in a window (sign-in,
   * registration), or calls over a rate limit (docs/rate-limits.md).
   */
  rate_limited: {
    ...refused(429, 'too many attempts; try again later'),
    explain: (call) => {
      const limit = call.limit;
      if (limit === undefined) return 'too many calls; try again later';
      const whose =
        limit.of === 'agent' ? 'this agent' : `calls on ${call.connection}, all agents together,`;
      const flag =
        limit.of === 'agent' ? `--agent ${call.agent}` : `--connection ${call.connection}`;
      return `${whose} went over ${limit.perMinute} calls a minute (${limit.burst} at once); try again in ${limit.retryAfterSeconds} s, or an operator raises it: portcullis limits set ${flag} --per-minute <n>`;
    },
  },

  // The decision on a tool call.
  tool_unknown: refused(404, 'no such tool'),
  not_granted: {
    ...refused(403, 'this agent has no grant for this action'),
    explain: (call) => {
      const { agent, connection, action, classification } = call;
      if (call.grantScope === 'reads')
        return `this agent's grant on ${connection} covers reads only, and this is a ${classification} action: portcullis grant ${agent} ${connection} --scope all widens it`;
      if (call.grantScope === 'actions')
        return `this agent's grant on ${connection} lists other actions: portcullis grant ${agent} ${connection} --action ${action} (with the others) adds it`;
      return `this agent has no grant on ${connection}: portcullis grant ${agent} ${connection}`;
    },
  },
  // A write that is off by default says so: no one disabled it.
  action_disabled: {
    ...refused(403, 'an operator has disabled this action'),
    explain: (call) =>
      call.classification === 'read'
        ? `an operator has disabled this action; portcullis enable ${named(call)} turns it on again`
        : `this is a ${call.classification} action, and ${call.classification} actions are off until an operator enables them: portcullis enable ${named(call)}`,
  },
  action_quarantined: {
    ...refused(403, 'this action is quarantined until an operator reviews it'),
    explain: (call) =>
      `this action is quarantined until an operator reviews it: portcullis review ${named(call)}`,
  },
  action_retired: refused(403, 'this action is no longer in the provider catalog'),
  contract_changed: {
    ...refused(
      403,
      "this action's contract changed since it was reviewed; an operator must review it again",
    ),
    explain: (call) =>
      `this action's contract changed since it was reviewed; an operator must review it again: portcullis review ${named(call)}`,
  },
  connection_inactive: refused(409, 'the connection is not active'),

  // Calls held for approval (docs/approvals.md).
  approval_pending: refused(
    409,
    'this call waits for an owner or operator to approve it; call again with the same arguments once it is approved',
  ),
  approval_denied: refused(403, 'an owner or operator denied this call'),
  approval_expired: refused(410, 'no one approved this call in time; call again to ask again'),
  approval_self_refused: refused(
    403,
    'a member may not approve a call made for them (PORTCULLIS_APPROVAL_SELF=allow lets them)',
  ),
  credential_missing: refused(409, 'the connection has no credential for this action'),

  // The MCP transport (HTTP and JSON-RPC framing, sessions, revisions).
  host_header_refused: refused(403, 'Forbidden: Host header not allowed'),
  /** RFC 9112 §3.2: a request with more than one Host line is answered 400. */
  host_header_repeated: refused(400, 'Bad Request: more than one Host header'),
  origin_refused: refused(403, 'Forbidden: Origin header not allowed'),
  method_not_allowed: refused(405, 'Method Not Allowed'),
  not_acceptable: refused(
    406,
    'Not Acceptable: Client must accept both application/json and text/event-stream',
  ),
  unsupported_media_type: refused(
    415,
    'Unsupported Media Type: Content-Type must be application/json',
  ),
  payload_too_large: refused(413, 'Payload Too Large'),
  parse_error: refused(400, 'Parse error: Invalid JSON', RpcCode.parseError),
  invalid_request: refused(400, 'Invalid Request', RpcCode.invalidRequest),
  invalid_params: refused(400, 'Invalid params', RpcCode.invalidParams),
  method_not_found: refused(404, 'Method not found', RpcCode.methodNotFound),
  session_required: refused(400, 'Bad Request: Mcp-Session-Id header is required'),
  session_not_found: refused(404, 'Session not found', RpcCode.sessionNotFound),
  stream_conflict: refused(409, 'Conflict: Only one SSE stream is allowed per session'),
  protocol_version_unsupported: refused(
    400,
    'Unsupported protocol version',
    RpcCode.unsupportedProtocolVersion,
  ),
  header_mismatch: refused(
    400,
    'Header mismatch: the MCP request headers must match the body',
    RpcCode.headerMismatch,
  ),
  client_capability_missing: refused(
    400,
    'the client did not declare a capability this request needs',
    RpcCode.missingRequiredClientCapability,
  ),
  resource_not_found: refused(400, 'Resource not found', RpcCode.invalidParams),
  /** The same, as revisions before 2026-07-28 said it (-32002). */
  resource_not_found_legacy: refused(404, 'Resource not found', -32002),
  request_state_invalid: refused(400, 'requestState integrity check failed', RpcCode.invalidParams),
  endpoint_closed: failed(503, 'Service Unavailable: endpoint closed'),
  /**
   * The tasks extension: no task of this caller has this id (none ever had,
   * it expired, or it is another caller's: one answer for all three).
   */
  task_not_found: refused(
    400,
    'Task not found: no task of this caller has this id (a task expires, and belongs to the agent and endpoint that started it)',
    RpcCode.invalidParams,
  ),

  // Provider verification when connecting.
  verify_failed: failed(422, 'the provider refused the credential check'),

  // The outbound request and the provider's reply.
  host_not_allowed: refused(403, 'the host is not one this connection may call'),
  upstream_address_refused: failed(502, 'the upstream address is not one Portcullis may call'),
  upstream_unreachable: failed(502, 'the provider could not be reached'),
  upstream_timeout: failed(504, 'the provider did not answer in time'),
  upstream_deadline_exceeded: failed(504, 'the provider took longer than the call may last'),
  write_outcome_unknown: failed(
    504,
    'the request reached the provider but no reply came; the change may have happened',
  ),
  upstream_reply_too_large: failed(502, "the provider's reply is over the size limit"),
  upstream_redirect_refused: failed(502, 'the provider answered with a redirect'),
  upstream_status: failed(502, 'the provider answered with an error status'),
  upstream_reply_invalid: failed(502, "the provider's reply could not be read"),

  // Remote MCP servers: connecting one, and its replies.
  remote_url_invalid: refused(400, 'the address is not a valid MCP endpoint URL'),
  remote_url_private: refused(422, 'the address is on a private or loopback network'),
  remote_unreachable: failed(502, 'the remote MCP server could not be reached'),
  remote_not_mcp: failed(502, 'the address does not answer as an MCP server'),
  remote_credential_refused: refused(422, 'the remote MCP server refused the key or headers'),
  remote_config_invalid: refused(
    400,
    'the pasted configuration is not an mcpServers entry Portcullis can use',
  ),
  mcp_remote_response_too_large: failed(
    502,
    "the remote MCP server's reply is over the size limit; ask for a smaller result (a narrower query or a smaller page)",
  ),
  mcp_remote_malformed_response: failed(
    502,
    "the remote MCP server's reply is not a JSON-RPC answer to the request",
  ),
  mcp_remote_invalid_json: failed(502, "the remote MCP server's reply is not valid JSON"),
  mcp_remote_session_expired: failed(
    502,
    'the remote MCP session expired again right after it was opened',
  ),
  mcp_remote_status: failed(502, 'the remote MCP server answered with an error status'),
  mcp_remote_error: failed(502, 'the remote MCP server answered with a JSON-RPC error'),
  mcp_remote_input_expired: failed(
    410,
    "the remote MCP server's question is no longer waiting for this answer (it has expired, or was answered already); call the tool again",
  ),

  // Signing in to a remote MCP server's authorization server (runtime/core/identity/oauth-client).
  /** Every address a remote server chose passes one check (seed 000); the value is never shown or stored. */
  oauth_resource_metadata_endpoint_rejected: refused(
    422,
    'the protected resource metadata address the server named is not a safe https address',
  ),
  oauth_issuer_endpoint_rejected: refused(
    422,
    "the authorization server's issuer is not a safe https address",
  ),
  oauth_authorization_endpoint_rejected: refused(
    422,
    "the authorization server's authorization endpoint is not a safe https address",
  ),
  oauth_token_endpoint_rejected: refused(
    422,
    "the authorization server's token endpoint is not a safe https address",
  ),
  oauth_registration_endpoint_rejected: refused(
    422,
    "the authorization server's registration endpoint is not a safe https address",
  ),
  oauth_revocation_endpoint_rejected: refused(
    422,
    "the authorization server's revocation endpoint is not a safe https address",
  ),
  oauth_discovery_failed: failed(
    502,
    'the server publishes no usable OAuth metadata; give a key or headers instead',
  ),
  oauth_resource_mismatch: refused(
    422,
    "the server's protected resource metadata names another resource than this endpoint",
  ),
  oauth_issuer_mismatch: refused(
    422,
    "the authorization server's metadata names another issuer than the one it was found for",
  ),
  oauth_client_required: refused(
    422,
    'this authorization server needs a client registered in its console: enter its client id (and secret)',
  ),
  oauth_client_rebind_required: refused(
    422,
    'the client you entered was for another authorization server, resource or callback: enter it again',
  ),
  oauth_registration_failed: failed(502, 'the authorization server refused to register a client'),
  oauth_state_invalid: refused(
    400,
    'the sign-in is unknown, already used or expired; start it again',
  ),
  /** A sign-in link of a member's agent opened in another member's session. */
  oauth_sign_in_wrong_member: refused(
    403,
    'this sign-in link is for another member; sign in as the member whose agent it connects',
  ),
  /** Too many sign-ins wait between their link and the callback, for one credential or one workspace. */
  oauth_sign_ins_exceeded: refused(
    429,
    'too many sign-ins are waiting already; finish one or let it expire',
  ),
  oauth_iss_mismatch: refused(
    422,
    'the authorization response came from another issuer than expected; the code was not used',
  ),
  oauth_authorization_denied: refused(403, 'the authorization server did not grant access'),
  /** A member's sign-in at the company's identity provider did not prove who signed in. */
  idp_sign_in_failed: refused(
    401,
    "the identity provider's answer did not prove who signed in; sign in again",
  ),
  idp_unavailable: failed(
    502,
    'the identity provider could not be reached, or publishes no OpenID metadata Portcullis can use',
  ),
  idp_secret_missing: failed(
    503,
    "the identity provider's client secret is not in the gateway's environment; ask an operator",
  ),
  oauth_resource_refused: refused(
    422,
    'the authorization server refuses the resource parameter; turn it off for this connection and sign in again',
  ),
  oauth_token_failed: failed(502, 'the authorization server did not issue tokens'),
  oauth_sign_in_required: refused(
    409,
    'the sign-in to this server is no longer valid; sign in again',
  ),
  oauth_scope_insufficient: refused(
    403,
    'the upstream server needs a scope the sign-in could not obtain',
  ),
  /** A connection that acts on the member's behalf, and no live token of the member's IdP sign-in to exchange. */
  idp_session_required: refused(
    409,
    "this connection acts on the member's behalf and the member's sign-in at the company's identity provider has expired or was never kept; the member must sign in through the identity provider again",
  ),
  /** The upstream's authorization server did not exchange the member's token (RFC 8693). */
  upstream_token_exchange_failed: failed(
    502,
    "the remote server's authorization server did not exchange the member's token; an operator must check the connection's token exchange setting (portcullis connection auth)",
  ),
  /** The enterprise IdP did not trade the member's ID token for an ID-JAG (Enterprise-Managed Authorization). */
  idp_id_jag_failed: failed(
    502,
    "the company's identity provider did not issue an ID-JAG for the member's ID token; an operator must check the connection's --id-jag provider and that provider's client (portcullis connection auth, portcullis idp)",
  ),
  /** The upstream's authorization server did not redeem the ID-JAG (RFC 7523 jwt-bearer). */
  upstream_jwt_bearer_failed: failed(
    502,
    "the remote server's authorization server did not accept the ID-JAG from the company's identity provider; an operator must check the connection's client and --id-jag setting (portcullis connection auth)",
  ),
  /** The upstream's authorization server did not issue a token for the workspace's own client. */
  upstream_client_credentials_failed: failed(
    502,
    "the remote server's authorization server refused the workspace's client credentials; an operator must check the connection's client (portcullis connection auth)",
  ),
  /** The connection's authorization server does not list the grant its auth setting needs. */
  oauth_grant_unsupported: refused(
    422,
    "the remote server's authorization server does not offer the grant this setting needs; choose another setting for the connection",
  ),

  // The authorization server's consent page.
  /** A consent request decided already (denied or approved): a request is decided once. */
  consent_decided: refused(
    409,
    'this request to connect was already answered; start again from the app to connect it',
  ),

  // The console.
  /** The member's role does not allow this: a viewer's change, a `member` in the console. */
  console_role_refused: refused(
    403,
    'your role in this workspace does not allow this; an owner can change it (portcullis member role <name> operator)',
  ),
  /** A change without the session's CSRF token, or sent from another origin. */
  console_csrf_refused: refused(
    403,
    'the request did not come from the console page; reload the console and try again',
  ),

  // Ours.
  config_invalid: {
    status: 500,
    rpc: RpcCode.internalError,
    expose: true,
    audited: 'error',
    message: 'the configuration is not valid',
  },
  state_unavailable: {
    status: 503,
    rpc: RpcCode.internalError,
    expose: false,
    audited: 'error',
    message: 'the shared state is unavailable',
  },
  store_unavailable: {
    status: 503,
    rpc: RpcCode.internalError,
    expose: true,
    audited: 'error',
    message: 'the store is unavailable',
  },
  /** `/readyz`: a backing service (or the start) is not ready; `detail.notReady` names which. */
  not_ready: {
    status: 503,
    rpc: RpcCode.internalError,
    expose: true,
    audited: 'error',
    message: 'the gateway is not ready to serve',
  },
  /** `portcullis audit verify`: a stored audit event breaks the hash chain; `detail` names it. */
  audit_chain_broken: {
    status: 500,
    rpc: RpcCode.internalError,
    expose: true,
    audited: 'error',
    message: 'the audit log does not match its hash chain',
  },
  vault_unavailable: {
    status: 500,
    rpc: RpcCode.internalError,
    expose: false,
    audited: 'error',
    message: 'internal error',
  },
  internal: {
    status: 500,
    rpc: RpcCode.internalError,
    expose: false,
    audited: 'error',
    message: 'internal error',
  },
} as const satisfies Record<string, Reason>;

export type ReasonCode = keyof typeof REASONS;

/** A denied tool call's message: the table's explanation for it, else the code's message. */
export function deniedMessage(code: ReasonCode, call: DeniedCall): string {
  const reason: Reason = REASONS[code];
  return reason.explain?.(call) ?? reason.message;
}

export interface GatewayErrorOptions {
  /** The field to change: a JSON pointer into the arguments, a flag, or a body property. */
  field?: string;
  /** Structured detail that is safe to show (never a secret). */
  detail?: Record<string, unknown>;
  cause?: unknown;
}

export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly code: ReasonCode;
  readonly field: string | undefined;
  readonly detail: Record<string, unknown> | undefined;

  /** Without a message, the table's public message for the code. */
  constructor(code: ReasonCode, message?: string, options: GatewayErrorOptions = {}) {
    super(
      message ?? REASONS[code].message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.field = options.field;
    this.detail = options.detail;
  }

  get status(): number {
    return REASONS[this.code].status;
  }
}

/** What an API reply or an MCP result may say about an error: never an internal message. */
export interface PublicError {
  code: ReasonCode;
  message: string;
  field?: string;
  detail?: Record<string, unknown>;
}

export function publicError(error: unknown): PublicError {
  if (error instanceof GatewayError && REASONS[error.code].expose) {
    return {
      code: error.code,
      message: error.message,
      ...(error.field === undefined ? {} : { field: error.field }),
      ...(error.detail === undefined ? {} : { detail: error.detail }),
    };
  }
  const code = error instanceof GatewayError ? error.code : 'internal';
  return { code, message: REASONS[code].message };
}

export function reasonOf(error: unknown): ReasonCode {
  return error instanceof GatewayError ? error.code : 'internal';
}

export function statusOf(error: unknown): number {
  return REASONS[reasonOf(error)].status;
}

/** Whether the error should reach the operator's log: anything not shown to the caller as it is. */
export function isOperatorsToSee(error: unknown): boolean {
  return !REASONS[reasonOf(error)].expose;
}

export interface ChallengeOptions {
  realm: string;
  /** RFC 9728 §5.1: where the protected resource metadata is. */
  resourceMetadataUrl?: string | undefined;
  /** RFC 6750 §3: the scopes the request needs (space-separated). */
  scope?: string | undefined;
}

/**
 * The `WWW-Authenticate` value for a 401, or for a tool call refused for its
 * scope (RFC 6750, RFC 9728): `refused` adds the table's `error` parameter (a
 * credential was presented and is not valid, or lacks a scope) and, for a
 * refusal, its public message as `error_description`.
 */
export function bearerChallenge(options: ChallengeOptions, refusedCode?: ReasonCode): string {
  const parts = [`realm="${quotable(options.realm)}"`];
  const challenge = refusedCode ? (REASONS[refusedCode] as Reason).challenge : undefined;
  if (challenge) parts.push(`error="${challenge}"`);
  if (challenge === 'insufficient_scope' && refusedCode) {
    parts.push(`error_description="${quotable(REASONS[refusedCode].message)}"`);
  }
  if (options.scope !== undefined) parts.push(`scope="${quotable(options.scope)}"`);
  if (options.resourceMetadataUrl !== undefined) {
    parts.push(`resource_metadata="${quotable(options.resourceMetadataUrl)}"`);
  }
  return `Bearer ${parts.join(', ')}`;
}

/** The `WWW-Authenticate` `error` a code is answered with, if it has one. */
export function challengeErrorOf(code: ReasonCode): Reason['challenge'] {
  return (REASONS[code] as Reason).challenge;
}

function quotable(value: string): string {
  if (/["\\\p{Cc}]/u.test(value)) {
    throw new TypeError('a challenge parameter must not contain quotes, backslashes or controls');
  }
  return value;
}
