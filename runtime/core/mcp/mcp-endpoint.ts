/**
 * The gateway's own MCP endpoint: MCP Streamable HTTP (2025-11-25, and
 * 2025-06-18 and 2025-03-26 clients) as a `request → response` function, with
 * no framework and no SDK transport. Every POST is answered on its own HTTP
 * response (JSON, or one SSE event stream for SSE-only clients), so a reply can
 * only ever reach the request that asked for it. There is no standalone GET
 * stream: the server sends no requests or notifications of its own.
 *
 * Order of checks on every request: one Host header line (400) → Host/Origin
 * (DNS rebinding, before any credential lookup) → credential (401) → HTTP
 * method → Accept (406) →
 * Content-Type (415) → body (413, parse error) → session (400 missing, 404
 * unknown or another caller's) → MCP-Protocol-Version header (400) → method.
 */
import {
  type Implementation,
  InitializeRequestParamsSchema,
  type InitializeResult,
} from '@modelcontextprotocol/sdk/types.js';
import { GatewayError } from '../errors.ts';
import {
  accepted,
  headerValue,
  isJsonContentType,
  type McpHttpRequest,
  type McpHttpResponse,
  messagesReply,
  PROTOCOL_VERSION_HEADER,
  type ReplyFormat,
  refusal,
  replyFormatFor,
  SESSION_HEADER,
} from './http-exchange.ts';
import {
  classifyMessage,
  errorMessage,
  type IncomingMessage,
  RpcCode,
  resultMessage,
} from './json-rpc.ts';
import { answerRequest, takeNotification } from './mcp-methods.ts';
import { createOriginGuard } from './origin-guard.ts';
import {
  allowsBatches,
  isSupportedProtocolVersion,
  negotiateProtocolVersion,
} from './protocol-version.ts';
import { repeatsHost } from './repeated-host.ts';
import { type Session, SessionTable } from './sessions.ts';
import type { McpPrincipal, ToolHost } from './tool-host.ts';

export interface McpEndpointOptions {
  host: ToolHost;
  serverInfo: Implementation;
  /** Host header values allowed; see `createOriginGuard`. Default: loopback names, any port. */
  allowedHosts?: string[];
  /** Origin header values allowed (when one is sent). Default: loopback origins, any port. */
  allowedOrigins?: string[];
  /** Host/Origin checks; on unless turned off (only behind a proxy that does them). */
  dnsRebindingProtection?: boolean;
  /** A session unused this long ends. Default 30 minutes. */
  sessionIdleMs?: number;
  /** Live sessions at most; opening one more ends the least recently used. Default 10,000. */
  maxSessions?: number;
  /** Live sessions per agent; opening one more ends that agent's least recently used. Default 100. */
  maxSessionsPerAgent?: number;
  /** Named in `WWW-Authenticate` as `resource_metadata` (RFC 9728). */
  resourceMetadataUrl?: string;
  /** Told about every internal failure, whose details the caller never sees (for the operator's log). */
  onInternalError?: (error: unknown) => void;
  /** Clock for session expiry (tests). */
  now?: () => number;
}

export interface McpEndpoint {
  handle(request: McpHttpRequest): Promise<McpHttpResponse>;
  /** Ends every session (aborting running calls) and refuses further requests. */
  close(): void;
  readonly sessionCount: number;
}

/** As in the SDK's server transport. */
const MAX_BATCH_SIZE = 100;
const DEFAULT_IDLE_MS = 30 * 60_000;
const DEFAULT_MAX_SESSIONS = 10_000;
const DEFAULT_MAX_SESSIONS_PER_AGENT = 100;
const CAPABILITIES = { tools: { listChanged: false } } as const;

export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const { host, serverInfo } = options;
  const sessionIdleMs = options.sessionIdleMs ?? DEFAULT_IDLE_MS;
  const sessions = new SessionTable({
    idleMs: sessionIdleMs,
    maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    maxSessionsPerAgent: options.maxSessionsPerAgent ?? DEFAULT_MAX_SESSIONS_PER_AGENT,
    ...(options.now ? { now: options.now } : {}),
  });
  const guard =
    options.dnsRebindingProtection === false
      ? undefined
      : createOriginGuard({
          ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
          ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
        });
  const challenge = bearerChallenge(options.resourceMetadataUrl);
  const report = options.onInternalError ?? (() => {});
  const sweeper = setInterval(() => sessions.sweep(), Math.min(sessionIdleMs, 60_000));
  sweeper.unref();
  let closed = false;

  async function handle(request: McpHttpRequest): Promise<McpHttpResponse> {
    if (closed) return refusal(503, RpcCode.serverError, 'Service Unavailable: endpoint closed');
    const { headers } = request;
    if (repeatsHost(request.rawHeaders)) {
      return refusal(400, RpcCode.serverError, 'Bad Request: more than one Host header');
    }
    if (guard !== undefined) {
      const verdict = guard(headerValue(headers, 'host'), headerValue(headers, 'origin'));
      if (verdict === 'host_refused') {
        return refusal(403, RpcCode.serverError, 'Forbidden: Host header not allowed');
      }
      if (verdict === 'origin_refused') {
        return refusal(403, RpcCode.serverError, 'Forbidden: Origin header not allowed');
      }
    }

    const authorization = headerValue(headers, 'authorization');
    let principal: McpPrincipal | undefined;
    try {
      principal = await host.authenticate(authorization);
    } catch (error) {
      if (!(error instanceof GatewayError && error.code === 'unauthenticated')) {
        report(error);
        return refusal(500, RpcCode.internalError, 'Internal error');
      }
    }
    if (principal === undefined) {
      return refusal(401, RpcCode.serverError, 'Unauthorized', {
        'WWW-Authenticate': authorization === undefined ? challenge.missing : challenge.refused,
      });
    }

    switch (request.method) {
      case 'POST':
        return post(request, principal);
      case 'DELETE':
        return terminate(request, principal);
      default:
        // No standalone SSE stream: this server never speaks first.
        return refusal(405, RpcCode.serverError, 'Method Not Allowed', { Allow: 'POST, DELETE' });
    }
  }

  async function post(request: McpHttpRequest, principal: McpPrincipal): Promise<McpHttpResponse> {
    const { headers, body } = request;
    const format = replyFormatFor(headerValue(headers, 'accept'));
    if (format === undefined) {
      return refusal(
        406,
        RpcCode.serverError,
        'Not Acceptable: Client must accept both application/json and text/event-stream',
      );
    }
    if (!isJsonContentType(headerValue(headers, 'content-type'))) {
      return refusal(
        415,
        RpcCode.serverError,
        'Unsupported Media Type: Content-Type must be application/json',
      );
    }
    if (request.bodyTooLarge) return refusal(413, RpcCode.serverError, 'Payload Too Large');
    if (request.rawBodyError) return refusal(400, RpcCode.parseError, 'Parse error: Invalid JSON');
    if (Array.isArray(body)) return postBatch(request, principal, body, format);

    const message = classifyMessage(body);
    if (message.kind === 'invalid') {
      return messagesReply(
        errorMessage(message.id, RpcCode.invalidRequest, 'Invalid Request'),
        'json',
        undefined,
        400,
      );
    }
    if (message.kind === 'request' && message.method === 'initialize') {
      return initialize(request, principal, message, format);
    }
    const session = sessionOf(request, principal);
    if (!isSession(session)) return session;

    if (message.kind === 'notification') {
      takeNotification(session, message.method, message.params);
      return accepted(session.id);
    }
    if (message.kind === 'response') return accepted(session.id);
    const reply = await answerRequest(
      { host, session, principal, cancelOnDisconnect: request.cancelOnDisconnect, report },
      message.id,
      message.method,
      message.params,
    );
    return messagesReply(reply, format, session.id);
  }

  function initialize(
    request: McpHttpRequest,
    principal: McpPrincipal,
    message: Extract<IncomingMessage, { kind: 'request' }>,
    format: ReplyFormat,
  ): McpHttpResponse {
    if (headerValue(request.headers, SESSION_HEADER) !== undefined) {
      const session = sessionOf(request, principal);
      if (!isSession(session)) return session;
      return refusal(400, RpcCode.invalidRequest, 'Invalid Request: Server already initialized');
    }
    const params = InitializeRequestParamsSchema.safeParse(message.params);
    if (!params.success) {
      return messagesReply(
        errorMessage(message.id, RpcCode.invalidParams, 'Invalid params'),
        'json',
        undefined,
        400,
      );
    }
    const protocolVersion = negotiateProtocolVersion(params.data.protocolVersion);
    const session = sessions.open(principal, protocolVersion);
    const result: InitializeResult = { protocolVersion, capabilities: CAPABILITIES, serverInfo };
    return messagesReply(resultMessage(message.id, result), format, session.id);
  }

  async function postBatch(
    request: McpHttpRequest,
    principal: McpPrincipal,
    batch: unknown[],
    format: ReplyFormat,
  ): Promise<McpHttpResponse> {
    if (batch.length === 0 || batch.length > MAX_BATCH_SIZE) {
      return refusal(400, RpcCode.invalidRequest, 'Invalid Request: batch size');
    }
    const session = sessionOf(request, principal);
    if (!isSession(session)) return session;
    if (!allowsBatches(session.protocolVersion)) {
      return refusal(
        400,
        RpcCode.invalidRequest,
        `Invalid Request: batches are not part of protocol version ${session.protocolVersion}`,
      );
    }
    const messages = batch.map(classifyMessage);
    for (const message of messages) {
      if (message.kind === 'invalid')
        return refusal(400, RpcCode.invalidRequest, 'Invalid Request');
      if (message.kind === 'request' && message.method === 'initialize') {
        return refusal(400, RpcCode.invalidRequest, 'Invalid Request: initialize in a batch');
      }
    }
    const context = {
      host,
      session,
      principal,
      cancelOnDisconnect: request.cancelOnDisconnect,
      report,
    };
    const replies = [];
    for (const message of messages) {
      if (message.kind === 'notification') {
        takeNotification(session, message.method, message.params);
      } else if (message.kind === 'request') {
        replies.push(answerRequest(context, message.id, message.method, message.params));
      }
    }
    if (replies.length === 0) return accepted(session.id);
    return messagesReply(await Promise.all(replies), format, session.id);
  }

  function terminate(request: McpHttpRequest, principal: McpPrincipal): McpHttpResponse {
    const session = sessionOf(request, principal);
    if (!isSession(session)) return session;
    sessions.end(session);
    return { status: 204, headers: {} };
  }

  /** The caller's live session named by the request, or the refusal to answer with. */
  function sessionOf(request: McpHttpRequest, principal: McpPrincipal): Session | McpHttpResponse {
    const id = headerValue(request.headers, SESSION_HEADER);
    if (id === undefined || id === '') {
      return refusal(400, RpcCode.serverError, 'Bad Request: Mcp-Session-Id header is required');
    }
    const session = sessions.use(id, principal);
    if (session === undefined) return refusal(404, RpcCode.sessionNotFound, 'Session not found');
    const version = headerValue(request.headers, PROTOCOL_VERSION_HEADER);
    if (version !== undefined && !isSupportedProtocolVersion(version)) {
      return refusal(400, RpcCode.serverError, 'Bad Request: Unsupported protocol version');
    }
    return session;
  }

  return {
    handle,
    close() {
      closed = true;
      clearInterval(sweeper);
      sessions.clear();
    },
    get sessionCount() {
      return sessions.size;
    },
  };
}

function isSession(value: Session | McpHttpResponse): value is Session {
  return 'running' in value;
}

/** The `WWW-Authenticate` values for a missing and for a refused credential (RFC 6750, RFC 9728). */
function bearerChallenge(resourceMetadataUrl: string | undefined): {
  missing: string;
  refused: string;
} {
  if (resourceMetadataUrl !== undefined && /["\\\p{Cc}]/u.test(resourceMetadataUrl)) {
    throw new TypeError('resourceMetadataUrl must not contain quotes, backslashes or controls');
  }
  const metadata =
    resourceMetadataUrl === undefined ? '' : `, resource_metadata="${resourceMetadataUrl}"`;
  return {
    missing: `Bearer realm="portcullis"${metadata}`,
    refused: `Bearer realm="portcullis", error="invalid_token"${metadata}`,
  };
}
