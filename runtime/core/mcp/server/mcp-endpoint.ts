/**
 * The gateway's own MCP endpoint, dual-era: MCP 2026-07-28 (stateless, see
 * `modern-wire.ts`) and 2025-11-25, 2025-06-18 and 2025-03-26 (stateful, see
 * `legacy-wire.ts`) on one path, as a `request → response` function with no
 * framework and no SDK transport. Every POST is answered on its own HTTP
 * response (one JSON body, or an event stream when the request has something
 * to say before its result), so a reply can only ever reach the request that
 * asked for it.
 *
 * Order of checks on every request: one Host header line (400) → Host/Origin
 * (DNS rebinding, before any credential lookup) → credential (401) → HTTP
 * method → Accept (406) → Content-Type (415) → body (413, parse error,
 * invalid message) → era → the era's own checks.
 */
import type { Implementation } from '@modelcontextprotocol/server';
import {
  bearerChallenge,
  challengeErrorOf,
  GatewayError,
  isOperatorsToSee,
} from '../../base/errors.ts';
import { isPlainObject } from '../../base/json-value.ts';
import { MemorySharedState } from '../../ports/shared-state/memory-shared-state.ts';
import type { SharedState } from '../../ports/shared-state/shared-state.ts';
import { eraOf } from '../wire/era.ts';
import {
  errorReply,
  errorReplyOf,
  headerValue,
  isJsonContentType,
  type McpHttpRequest,
  type McpHttpResponse,
  replyFormatFor,
} from '../wire/http-exchange.ts';
import { classifyMessage, isId, type JsonRpcId } from '../wire/json-rpc.ts';
import { SERVER_INFO_META_KEY } from '../wire/spec-names.ts';
import { ClientRequests } from './client-requests.ts';
import { LegacyWire } from './legacy-wire.ts';
import { ModernWire } from './modern-wire.ts';
import { createOriginGuard } from './origin-guard.ts';
import { repeatsHost } from './repeated-host.ts';
import { tracedRequest } from './request-span.ts';
import type { RequestStateSealer } from './request-state.ts';
import { SessionTable } from './sessions.ts';
import { SharedSessions } from './shared-sessions.ts';
import type { McpPrincipal, ToolBackend } from './tool-backend.ts';

export interface McpEndpointOptions<P extends McpPrincipal = McpPrincipal> {
  backend: ToolBackend<P>;
  serverInfo: Implementation;
  /** Seals the `requestState` of multi round-trip requests. */
  requestState: RequestStateSealer;
  /** Where legacy sessions live for every replica. Default: in this process only. */
  state?: SharedState;
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
  /** Named in a 401's `WWW-Authenticate` as `scope`: what a client should ask for to get in. */
  challengeScope?: string;
  /**
   * How a tool call refused `insufficient_scope` is answered to a caller
   * whose principal names no form of its own (`McpPrincipal.stepUp`, its
   * OAuth client's): `http` (the default), HTTP 403 with the challenge, as
   * MCP's authorization says and the SDKs' clients step up from; `result`, an
   * `isError` result carrying it in `_meta["mcp/www_authenticate"]`, as
   * OpenAI's Apps SDK describes.
   */
  stepUp?: 'http' | 'result';
  /** Told about every internal failure, whose details the caller never sees (for the operator's log). */
  onInternalError?: (error: unknown) => void;
  /** Clock for session expiry (tests). */
  now?: () => number;
}

export interface McpEndpoint {
  handle(request: McpHttpRequest): Promise<McpHttpResponse>;
  /** Ends every session and stream (aborting running calls) and refuses further requests. */
  close(): void;
  readonly sessionCount: number;
}

const DEFAULT_IDLE_MS = 30 * 60_000;
const DEFAULT_MAX_SESSIONS = 10_000;
const DEFAULT_MAX_SESSIONS_PER_AGENT = 100;
const REALM = 'portcullis';

export function createMcpEndpoint<P extends McpPrincipal>(
  options: McpEndpointOptions<P>,
): McpEndpoint {
  const { backend } = options;
  const sessionIdleMs = options.sessionIdleMs ?? DEFAULT_IDLE_MS;
  const report = options.onInternalError ?? (() => {});
  const clientRequests = new ClientRequests();
  const sessions: SharedSessions = new SharedSessions({
    table: new SessionTable({
      idleMs: sessionIdleMs,
      maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
      maxSessionsPerAgent: options.maxSessionsPerAgent ?? DEFAULT_MAX_SESSIONS_PER_AGENT,
      // Made room for another: it is over everywhere.
      onEvicted: (session) => sessions.forget(session.id),
      ...(options.now ? { now: options.now } : {}),
    }),
    state: options.state ?? new MemorySharedState(options.now ? { now: options.now } : {}),
    idleMs: sessionIdleMs,
    deliverAnswer: (sessionId, id, answer) => clientRequests.deliver(sessionId, id, answer),
    report,
  });
  const guard =
    options.dnsRebindingProtection === false
      ? undefined
      : createOriginGuard({
          ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
          ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
        });
  const challenge = { realm: REALM, resourceMetadataUrl: options.resourceMetadataUrl };
  const entry = { ...challenge, scope: options.challengeScope };
  const missingCredential = bearerChallenge(entry);
  const refusedCredential = bearerChallenge(entry, 'unauthenticated');
  const challengeOf = (error: GatewayError) => {
    if (challengeErrorOf(error.code) === undefined) return undefined;
    const scope = error.detail?.scope;
    return bearerChallenge(
      { ...challenge, ...(typeof scope === 'string' ? { scope } : {}) },
      error.code,
    );
  };
  const stepUp = options.stepUp ?? 'http';
  const context = {
    backend,
    serverInfo: options.serverInfo,
    serverMeta: Object.freeze({ [SERVER_INFO_META_KEY]: options.serverInfo }),
    sealer: options.requestState,
    report,
    challengeOf,
    stepUpOf: (error: GatewayError, principal: P) =>
      (principal.stepUp ?? stepUp) === 'http' && error.code === 'insufficient_scope'
        ? challengeOf(error)
        : undefined,
  };
  const legacy = new LegacyWire(context, sessions, clientRequests);
  const modern = new ModernWire(context);
  // Twice per idle period at least, so a busy session's shared record never lapses.
  const sweeper = setInterval(() => sessions.sweep(), Math.min(sessionIdleMs / 2, 60_000));
  sweeper.unref();
  let closed = false;

  async function handle(request: McpHttpRequest): Promise<McpHttpResponse> {
    // Every error reply names the request it answers, when the body had an id.
    const id = requestIdOf(request.body);
    try {
      return await tracedRequest(request, (traced) => serve(traced, id));
    } catch (error) {
      // What failed on the way (the shared state, the store) answers in the one error shape.
      if (isOperatorsToSee(error)) report(error);
      return errorReplyOf(error, id);
    }
  }

  async function serve(request: McpHttpRequest, id: JsonRpcId | null): Promise<McpHttpResponse> {
    if (closed) return errorReply('endpoint_closed', { id });
    const { headers } = request;
    if (repeatsHost(request.rawHeaders)) return errorReply('host_header_repeated', { id });
    if (guard !== undefined) {
      const verdict = guard(headerValue(headers, 'host'), headerValue(headers, 'origin'));
      if (verdict === 'host_refused') return errorReply('host_header_refused', { id });
      if (verdict === 'origin_refused') return errorReply('origin_refused', { id });
    }

    const authorization = headerValue(headers, 'authorization');
    let principal: P | undefined;
    try {
      principal = await backend.authenticate(authorization);
    } catch (error) {
      if (!(error instanceof GatewayError && error.code === 'unauthenticated')) throw error;
    }
    if (principal === undefined) {
      return errorReply('unauthenticated', {
        id,
        headers: {
          'WWW-Authenticate': authorization === undefined ? missingCredential : refusedCredential,
        },
      });
    }

    switch (request.method) {
      case 'POST':
        return post(request, principal, id);
      case 'DELETE':
        return legacy.terminate(request, principal);
      case 'GET':
        return legacy.listen(request, principal);
      default:
        return errorReply('method_not_allowed', { headers: { Allow: 'GET, POST, DELETE' } });
    }
  }

  async function post(
    request: McpHttpRequest,
    principal: P,
    id: JsonRpcId | null,
  ): Promise<McpHttpResponse> {
    const { headers, body } = request;
    const format = replyFormatFor(headerValue(headers, 'accept'));
    if (format === undefined) return errorReply('not_acceptable', { id });
    if (!isJsonContentType(headerValue(headers, 'content-type'))) {
      return errorReply('unsupported_media_type', { id });
    }
    if (request.bodyTooLarge) return errorReply('payload_too_large');
    if (request.rawBodyError) return errorReply('parse_error');
    if (Array.isArray(body)) return legacy.post(request, principal, format, { batch: body });

    const message = classifyMessage(body);
    if (message.kind === 'invalid') return errorReply('invalid_request', { id: message.id });
    // A message no era can serve throws its refusal, answered with the request's id.
    const era = eraOf(message, headers);
    if (era === 'modern' && message.kind !== 'response') {
      return modern.post(request, principal, format, message);
    }
    return legacy.post(request, principal, format, { message });
  }

  return {
    handle,
    close() {
      closed = true;
      clearInterval(sweeper);
      modern.close();
      sessions.clear();
    },
    get sessionCount() {
      return sessions.size;
    },
  };
}

function requestIdOf(body: unknown): JsonRpcId | null {
  return isPlainObject(body) && isId(body.id) ? body.id : null;
}
