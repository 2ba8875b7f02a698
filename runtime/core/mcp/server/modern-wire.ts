/**
 * The modern wire: MCP 2026-07-28, stateless. Every request carries its
 * protocol version and the client's capabilities in `_meta` and mirrors its
 * method (and tool name) in headers; nothing is remembered between requests
 * (no session, no `initialize`); `subscriptions/listen` is the one long-lived
 * request, a stream of the change notifications the client asked for (tool
 * list changes, updates of the resources it names).
 * JSON-RPC errors carry their HTTP status (400 for bad params and headers,
 * 404 for a method the revision does not have), and the request's id.
 *
 * Order of checks after the era is known: `_meta` (-32602) → protocol version
 * (-32022) → request headers (-32020) → method.
 */

import { GatewayError, REASONS } from '../../base/errors.ts';
import { isPlainObject } from '../../base/json-value.ts';
import type { SpanParent } from '../../base/tracing.ts';
import type { EventStream } from '../wire/event-stream.ts';
import {
  errorReply,
  errorReplyOf,
  type McpHttpRequest,
  type McpHttpResponse,
  type ReplyFormat,
  rpcErrorOf,
  SSE_HEADERS,
} from '../wire/http-exchange.ts';
import {
  type IncomingMessage,
  type JsonRpcId,
  notificationMessage,
  resultMessage,
} from '../wire/json-rpc.ts';
import { checkParamHeaders } from '../wire/param-headers.ts';
import { isModernVersion, MODERN_VERSIONS } from '../wire/protocol-version.ts';
import {
  type ModernMeta,
  metaOf,
  modernMetaOrThrow,
  traceContextOf,
} from '../wire/request-meta.ts';
import { SUBSCRIPTION_ID_META_KEY } from '../wire/spec-names.ts';
import { checkStandardHeaders } from '../wire/standard-headers.ts';
import { listenStream } from './listen-stream.ts';
import { answerRequest } from './mcp-methods.ts';
import { PendingReply } from './pending-reply.ts';
import type { RequestScope } from './request-scope.ts';
import type { DecidedToolCall, McpPrincipal, ResourceSubscription } from './tool-backend.ts';
import type { WireContext } from './wire-context.ts';

export class ModernWire<P extends McpPrincipal> {
  readonly #context: WireContext<P>;
  /** Open `subscriptions/listen` streams, each with what ends it gracefully. */
  readonly #listening = new Set<() => void>();

  constructor(context: WireContext<P>) {
    this.#context = context;
  }

  async post(
    request: McpHttpRequest,
    principal: P,
    format: ReplyFormat,
    message: Extract<IncomingMessage, { kind: 'request' | 'notification' }>,
  ): Promise<McpHttpResponse> {
    // No client-to-server notification is defined on this wire: accepted and dropped.
    if (message.kind === 'notification') return { status: 202, headers: {} };
    const { id, method, params } = message;
    let meta: ModernMeta;
    let decided: DecidedToolCall | undefined;
    try {
      meta = modernMetaOrThrow(params);
      if (!isModernVersion(meta.protocolVersion)) {
        return errorReply('protocol_version_unsupported', {
          id,
          data: { supported: MODERN_VERSIONS, requested: meta.protocolVersion },
        });
      }
      checkStandardHeaders(request.headers, method, params, meta.protocolVersion);
      if (method === 'tools/call' && typeof params?.name === 'string') {
        decided = await this.#describe(principal, params.name, request.span);
        const args = isPlainObject(params.arguments) ? params.arguments : undefined;
        if (decided.tool) checkParamHeaders(decided.tool, request.headers, args);
      }
    } catch (error) {
      if (error instanceof GatewayError) return errorReplyOf(error, id);
      throw error;
    }
    if (method === 'subscriptions/listen')
      return this.#listen(principal, id, params, meta, request.span);

    const reply = new PendingReply(format);
    const { backend, serverInfo, serverMeta, sealer, report, challengeOf, stepUpOf } =
      this.#context;
    const scope: RequestScope<P> = {
      backend,
      serverInfo,
      serverMeta,
      sealer,
      report,
      challengeOf,
      stepUpOf,
      principal,
      era: 'modern',
      protocolVersion: meta.protocolVersion,
      clientCapabilities: meta.clientCapabilities,
      logLevel: meta.logLevel,
      reply,
      running: undefined,
      span: request.span,
      cancelOnDisconnect: request.cancelOnDisconnect,
      // Input comes back on a retry of the request, never on this reply.
      askClient: undefined,
      session: undefined,
      announce: undefined,
      decidedCall: decided,
    };
    void answerRequest(scope, id, method, params).then(
      (answer) => reply.settle(answer, answer.reason ? REASONS[answer.reason].status : 200),
      (error: unknown) => {
        this.#context.report(error);
        reply.finish(rpcErrorOf('internal', { id }), REASONS.internal.status);
      },
    );
    return reply.response;
  }

  /** The call of the tool it names, decided: the tool as its caller sees it (none: unknown, and the call says so). */
  async #describe(
    principal: P,
    name: string,
    span: SpanParent | undefined,
  ): Promise<DecidedToolCall> {
    const { backend } = this.#context;
    if (backend.describeTool) return backend.describeTool(principal, name, span);
    try {
      return {
        name,
        tool: (await backend.listTools(principal)).find((tool) => tool.name === name),
      };
    } catch {
      return { name, tool: undefined };
    }
  }

  /** Ends every listen stream with its graceful result. */
  close(): void {
    for (const end of [...this.#listening]) end();
  }

  /**
   * A `subscriptions/listen` stream: tool list changes when asked, and the
   * updates of each resource in `resourceSubscriptions` the backend
   * subscribed the client to (one it refused is left out of the
   * acknowledgment). Its subscriptions end when the stream does.
   */
  async #listen(
    principal: P,
    id: JsonRpcId,
    params: Record<string, unknown> | undefined,
    meta: ModernMeta,
    span: SpanParent | undefined,
  ): Promise<McpHttpResponse> {
    const requested = isPlainObject(params?.notifications) ? params.notifications : {};
    const honored: Record<string, unknown> =
      requested.toolsListChanged === true ? { toolsListChanged: true } : {};
    const subscription = { [SUBSCRIPTION_ID_META_KEY]: id };
    // Updates heard before the acknowledgment went out wait for it.
    let early: unknown[] | undefined = [];
    let stream: EventStream | undefined;
    const updated = (uri: string) => {
      const message = notificationMessage('notifications/resources/updated', {
        _meta: subscription,
        uri,
      });
      if (early) early.push(message);
      else stream?.send(message);
    };
    const subscriptions = await this.#subscribe(principal, requested, params, meta, span, updated);
    if (subscriptions.size > 0) honored.resourceSubscriptions = [...subscriptions.keys()];
    stream = listenStream(
      this.#context.backend,
      principal,
      honored.toolsListChanged === true
        ? () => notificationMessage('notifications/tools/list_changed', { _meta: subscription })
        : undefined,
    );
    stream.send(
      notificationMessage('notifications/subscriptions/acknowledged', {
        _meta: subscription,
        notifications: honored,
      }),
    );
    for (const message of early) stream.send(message);
    early = undefined;
    const listening = stream;
    const endGracefully = () => {
      listening.send(resultMessage(id, { resultType: 'complete', _meta: subscription }));
      listening.end();
    };
    this.#listening.add(endGracefully);
    listening.onClose(() => {
      this.#listening.delete(endGracefully);
      // Nothing stays subscribed for a stream that is gone.
      for (const held of subscriptions.values()) void held.end().catch(this.#context.report);
    });
    return { status: 200, headers: { ...SSE_HEADERS }, stream: listening };
  }

  /** The resources of `resourceSubscriptions` the backend subscribed the client to, by URI. */
  async #subscribe(
    principal: P,
    requested: Record<string, unknown>,
    params: Record<string, unknown> | undefined,
    meta: ModernMeta,
    span: SpanParent | undefined,
    updated: (uri: string) => void,
  ): Promise<Map<string, ResourceSubscription>> {
    const { backend } = this.#context;
    const held = new Map<string, ResourceSubscription>();
    const asked = requested.resourceSubscriptions;
    if (!Array.isArray(asked) || !backend.subscribeResource) return held;
    const uris = [
      ...new Set(asked.filter((uri): uri is string => typeof uri === 'string' && uri !== '')),
    ].slice(0, MAX_RESOURCE_SUBSCRIPTIONS);
    const context = {
      era: 'modern' as const,
      clientCapabilities: meta.clientCapabilities,
      trace: traceContextOf(metaOf(params)),
      span,
    };
    await Promise.all(
      uris.map(async (uri) => {
        try {
          held.set(uri, await backend.subscribeResource!(principal, { ...context, uri, updated }));
        } catch (error) {
          // Refused (and audited by the backend): left out of what is honoured.
          if (!(error instanceof GatewayError)) this.#context.report(error);
        }
      }),
    );
    return held;
  }
}

/** The most resources one `subscriptions/listen` stream subscribes to. */
const MAX_RESOURCE_SUBSCRIPTIONS = 100;
