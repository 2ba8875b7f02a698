/**
 * The legacy wire: MCP Streamable HTTP as 2025-11-25, 2025-06-18 and
 * 2025-03-26 define it. `initialize` opens a session owned by its principal;
 * every later request names it in `Mcp-Session-Id`; DELETE ends it; GET opens
 * the session's one standalone stream, on which the server announces tool
 * list changes and updates of the resources the session subscribed to.
 * JSON-RPC errors travel in 200 replies, as these revisions and their SDKs
 * expect; batches exist in 2025-03-26 only.
 *
 * Order of checks after authentication: session (400 missing, 404 unknown or
 * another caller's) → MCP-Protocol-Version header (400) → method.
 */
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import { checkBatch } from '../wire/era.ts';
import { EVENT_STREAM_TYPE } from '../wire/event-stream-codec.ts';
import {
  errorReply,
  headerValue,
  type McpHttpRequest,
  type McpHttpResponse,
  messagesReply,
  PROTOCOL_VERSION_HEADER,
  type ReplyFormat,
  rpcErrorOf,
  SESSION_HEADER,
  SSE_HEADERS,
  sessionHeaders,
} from '../wire/http-exchange.ts';
import {
  classifyMessage,
  type IncomingMessage,
  isId,
  type JsonRpcId,
  notificationMessage,
  resultMessage,
} from '../wire/json-rpc.ts';
import {
  allowsBatches,
  isLegacyVersion,
  LEGACY_VERSIONS,
  negotiateLegacyVersion,
} from '../wire/protocol-version.ts';
import { isLoggingLevel } from '../wire/request-meta.ts';
import type { Answer } from './answer.ts';
import type { ClientRequests } from './client-requests.ts';
import { listenStream } from './listen-stream.ts';
import { answerRequest, serverCapabilitiesFor } from './mcp-methods.ts';
import { PendingReply } from './pending-reply.ts';
import type { RequestScope } from './request-scope.ts';
import type { Session } from './sessions.ts';
import type { SharedSessions } from './shared-sessions.ts';
import type { McpPrincipal } from './tool-backend.ts';
import type { WireContext } from './wire-context.ts';

/** As in the SDK's server transport. */
const MAX_BATCH_SIZE = 100;

export class LegacyWire<P extends McpPrincipal> {
  readonly #context: WireContext<P>;
  readonly #sessions: SharedSessions;
  readonly #clientRequests: ClientRequests;

  /** A notification for a session's standalone stream (a subscribed resource was updated). */
  readonly #announce = (session: Session, message: unknown) =>
    this.#sessions.announce(session, message);

  constructor(context: WireContext<P>, sessions: SharedSessions, clientRequests: ClientRequests) {
    this.#context = context;
    this.#sessions = sessions;
    this.#clientRequests = clientRequests;
  }

  /** A POST of the legacy era: one message (`message`) or a batch (`batch`). */
  async post(
    request: McpHttpRequest,
    principal: P,
    format: ReplyFormat,
    body: { message: IncomingMessage } | { batch: unknown[] },
  ): Promise<McpHttpResponse> {
    if ('batch' in body) return this.#postBatch(request, principal, format, body.batch);
    const { message } = body;
    if (message.kind === 'request' && message.method === 'initialize') {
      return this.#initialize(request, principal, message, format);
    }
    const session = await this.#sessionOf(
      request,
      principal,
      message.kind === 'request' ? message.id : null,
    );
    if (!isSession(session)) return session;

    switch (message.kind) {
      case 'invalid':
        // The endpoint answers these before choosing an era.
        return errorReply('invalid_request', { id: message.id });
      case 'notification':
        this.#takeNotification(session, message.method, message.params);
        return { status: 202, headers: sessionHeaders(session.id) };
      case 'response':
        this.#sessions.answer(session, message.id, message);
        return { status: 202, headers: sessionHeaders(session.id) };
      case 'request': {
        const reply = new PendingReply(format, sessionHeaders(session.id));
        void this.#answer(request, principal, session, reply, message).then(
          (answer) => reply.settle(answer),
          (error: unknown) => {
            this.#context.report(error);
            reply.finish(rpcErrorOf('internal', { id: message.id }));
          },
        );
        return reply.response;
      }
    }
  }

  /** DELETE: ends the caller's session. */
  async terminate(request: McpHttpRequest, principal: P): Promise<McpHttpResponse> {
    const session = await this.#sessionOf(request, principal);
    if (!isSession(session)) return session;
    this.#sessions.end(session);
    return { status: 204, headers: {} };
  }

  /** GET: the session's standalone stream, where tool list changes are announced. */
  async listen(request: McpHttpRequest, principal: P): Promise<McpHttpResponse> {
    const accept = headerValue(request.headers, 'accept')?.toLowerCase();
    if (accept === undefined || !accept.includes(EVENT_STREAM_TYPE)) {
      return errorReply('not_acceptable', {
        message: 'Not Acceptable: Client must accept text/event-stream',
      });
    }
    const session = await this.#sessionOf(request, principal);
    if (!isSession(session)) return session;
    if (session.stream !== undefined && !session.stream.closed) {
      return errorReply('stream_conflict');
    }
    const stream = listenStream(this.#context.backend, principal, () =>
      notificationMessage('notifications/tools/list_changed'),
    );
    session.stream = stream;
    stream.onClose(() => {
      if (session.stream === stream) session.stream = undefined;
    });
    return { status: 200, headers: { ...SSE_HEADERS, ...sessionHeaders(session.id) }, stream };
  }

  async #initialize(
    request: McpHttpRequest,
    principal: P,
    message: Extract<IncomingMessage, { kind: 'request' }>,
    format: ReplyFormat,
  ): Promise<McpHttpResponse> {
    if (headerValue(request.headers, SESSION_HEADER) !== undefined) {
      const session = await this.#sessionOf(request, principal, message.id);
      if (!isSession(session)) return session;
      return errorReply('invalid_request', {
        id: message.id,
        message: 'Invalid Request: Server already initialized',
      });
    }
    // The SDK's schemas load at the first initialize, not at start.
    const { InitializeRequestParamsSchema } = await import('@modelcontextprotocol/core');
    const params = InitializeRequestParamsSchema.safeParse(message.params);
    if (!params.success) return errorReply('invalid_params', { id: message.id });
    const protocolVersion = negotiateLegacyVersion(params.data.protocolVersion);
    const session = await this.#sessions.open(
      principal,
      protocolVersion,
      params.data.capabilities as ClientCapabilities,
    );
    const result = {
      protocolVersion,
      capabilities: await serverCapabilitiesFor(
        this.#context.backend,
        principal,
        'legacy',
        protocolVersion,
        params.data.capabilities,
      ),
      serverInfo: this.#context.serverInfo,
    };
    return messagesReply(resultMessage(message.id, result), format, sessionHeaders(session.id));
  }

  async #postBatch(
    request: McpHttpRequest,
    principal: P,
    format: ReplyFormat,
    batch: unknown[],
  ): Promise<McpHttpResponse> {
    if (batch.length === 0 || batch.length > MAX_BATCH_SIZE) {
      return errorReply('invalid_request', { message: 'Invalid Request: batch size' });
    }
    const session = await this.#sessionOf(request, principal);
    if (!isSession(session)) return session;
    if (!allowsBatches(session.protocolVersion)) {
      return errorReply('invalid_request', {
        message: `Invalid Request: batches are not part of protocol version ${session.protocolVersion}`,
      });
    }
    const messages = batch.map(classifyMessage);
    // A batch no era can serve throws its refusal; the endpoint answers it.
    checkBatch(messages);
    for (const message of messages) {
      if (message.kind === 'invalid') return errorReply('invalid_request');
      if (message.kind === 'request' && message.method === 'initialize') {
        return errorReply('invalid_request', { message: 'Invalid Request: initialize in a batch' });
      }
    }
    const reply = new PendingReply(format, sessionHeaders(session.id));
    const answers: Promise<Answer>[] = [];
    for (const message of messages) {
      if (message.kind === 'notification') {
        this.#takeNotification(session, message.method, message.params);
      } else if (message.kind === 'response') {
        this.#sessions.answer(session, message.id, message);
      } else if (message.kind === 'request') {
        answers.push(this.#answer(request, principal, session, reply, message));
      }
    }
    if (answers.length === 0) return { status: 202, headers: sessionHeaders(session.id) };
    void Promise.all(answers).then(
      (done) => reply.finish(done.map((answer) => answer.message)),
      (error: unknown) => {
        this.#context.report(error);
        reply.finish(rpcErrorOf('internal'));
      },
    );
    return reply.response;
  }

  #answer(
    request: McpHttpRequest,
    principal: P,
    session: Session,
    reply: PendingReply,
    message: Extract<IncomingMessage, { kind: 'request' }>,
  ): Promise<Answer> {
    const { backend, serverInfo, serverMeta, sealer, report, challengeOf, stepUpOf } =
      this.#context;
    // A literal, not a spread of the context: this runs on every request.
    const scope: RequestScope<P> = {
      backend,
      serverInfo,
      serverMeta,
      sealer,
      report,
      challengeOf,
      stepUpOf,
      principal,
      era: 'legacy',
      protocolVersion: session.protocolVersion,
      clientCapabilities: session.clientCapabilities,
      logLevel: session.logLevel,
      reply,
      running: session.running,
      span: request.span,
      cancelOnDisconnect: request.cancelOnDisconnect,
      askClient: (requests, cancel) =>
        this.#clientRequests.ask(session.id, reply, requests, cancel),
      session,
      announce: this.#announce,
    };
    if (message.method === 'logging/setLevel') return setLevel(session, message.id, message.params);
    return answerRequest(scope, message.id, message.method, message.params);
  }

  /** Notifications need no answer; a cancellation aborts the call it names. */
  #takeNotification(
    session: Session,
    method: string,
    params: Record<string, unknown> | undefined,
  ): void {
    if (method !== 'notifications/cancelled' || params === undefined) return;
    const requestId = params.requestId;
    if (isId(requestId)) this.#sessions.cancel(session, requestId);
  }

  /** The caller's live session named by the request, or the refusal to answer with. */
  async #sessionOf(
    request: McpHttpRequest,
    principal: P,
    requestId: JsonRpcId | null = null,
  ): Promise<Session | McpHttpResponse> {
    const id = headerValue(request.headers, SESSION_HEADER);
    if (id === undefined || id === '') return errorReply('session_required', { id: requestId });
    const session = await this.#sessions.use(id, principal);
    if (session === undefined) return errorReply('session_not_found', { id: requestId });
    const version = headerValue(request.headers, PROTOCOL_VERSION_HEADER);
    if (version !== undefined && !isLegacyVersion(version)) {
      return errorReply('protocol_version_unsupported', {
        id: requestId,
        message: 'Bad Request: Unsupported protocol version',
        data: { supported: LEGACY_VERSIONS, requested: version },
      });
    }
    return session;
  }
}

/** `logging/setLevel`: log messages of the session's later calls at this level and above. */
async function setLevel(
  session: Session,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
): Promise<Answer> {
  const level = params?.level;
  if (!isLoggingLevel(level)) {
    return {
      message: rpcErrorOf('invalid_params', { id, message: 'Invalid params: level' }),
      reason: 'invalid_params',
    };
  }
  session.logLevel = level;
  return { message: resultMessage(id, {}) };
}

function isSession(value: Session | McpHttpResponse): value is Session {
  return 'running' in value;
}
