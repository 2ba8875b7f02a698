/**
 * The 2024-11-05 HTTP+SSE transport, for servers that offer only it: a GET
 * opens an event stream whose first event names the message endpoint (same
 * origin only); requests are POSTed there and their answers come back on the
 * stream, matched by id. Notifications about a call go to that call; a
 * request of the server goes to the one call waiting that can relay it (the
 * transport names no call), else it is answered with an error. Each
 * answer is bounded (1 MiB) and each call has its deadline; when the stream
 * ends, every call still waiting fails and the channel is closed for good.
 */
import { type CancelSignal, cancelledError } from '../../base/cancellation.ts';
import { GatewayError } from '../../base/errors.ts';
import type { TraceCarrier } from '../../base/tracing.ts';
import type { GuardedClient } from '../../outbound/guarded-client.ts';
import { PausableTimer } from '../../outbound/pausable-timer.ts';
import type { StreamedReply } from '../../outbound/streamed-exchange.ts';
import {
  EVENT_STREAM_TYPE,
  EventStreamReader,
  isEventStreamType,
  type ServerSentEvent,
} from '../wire/event-stream-codec.ts';
import {
  answerMessage,
  type JsonRpcId,
  type NotificationMessage,
  notificationMessage,
  type OutgoingMessage,
  type RequestMessage,
  type RpcAnswer,
  type RpcNotification,
  type RpcRequest,
  type RpcResponse,
  requestMessage,
} from '../wire/json-rpc.ts';
import { HTTP_SSE_VERSION } from '../wire/protocol-version.ts';
import { messageOf, notRelayed, type Parsed } from './mcp-reply.ts';
import type { UpstreamTarget } from './upstream-target.ts';

/** The stream as a whole may carry this much (each answer at most `maxAnswerBytes`). */
const STREAM_BYTES = 256 * 1_048_576;
/** How long the stream may stay open. */
const STREAM_LIFETIME_MS = 24 * 3_600_000;

interface Waiting {
  resolve(response: RpcResponse): void;
  reject(error: unknown): void;
  onNotification?: (message: RpcNotification) => void;
  onRequest?: (request: RpcRequest) => Promise<RpcAnswer>;
  progressToken?: unknown;
  /** Stops the request's deadline until the returned function is called. */
  pause(): () => void;
}

export class SseChannel {
  readonly #http: GuardedClient;
  readonly #target: UpstreamTarget;
  readonly #stream: StreamedReply;
  readonly #waiting = new Map<JsonRpcId, Waiting>();
  readonly #maxAnswerBytes: number;
  readonly #deadlineMs: number;
  /** Told of each notification the server sends (`notifications/tools/list_changed`, a resource updated). */
  onServerNotification: ((message: RpcNotification) => void) | undefined;
  #messageUrl: URL | undefined;
  #closed = false;
  #nextId = 1;

  private constructor(
    http: GuardedClient,
    target: UpstreamTarget,
    stream: StreamedReply,
    limits: { maxAnswerBytes: number; deadlineMs: number },
  ) {
    this.#http = http;
    this.#target = target;
    this.#stream = stream;
    this.#maxAnswerBytes = limits.maxAnswerBytes;
    this.#deadlineMs = limits.deadlineMs;
  }

  /** Opens the stream and waits for its endpoint event; undefined when the server does not speak HTTP+SSE. */
  static async open(
    http: GuardedClient,
    target: UpstreamTarget,
    limits: { maxAnswerBytes: number; deadlineMs: number },
  ): Promise<SseChannel | undefined> {
    const stream = await http.open(
      {
        method: 'GET',
        url: target.url,
        headers: { ...target.headers, accept: EVENT_STREAM_TYPE },
        redactor: target.redactor,
      },
      { maxReplyBytes: STREAM_BYTES, deadlineMs: STREAM_LIFETIME_MS },
    );
    if (stream.status !== 200 || !isEventStreamType(stream.headers['content-type'])) {
      stream.close();
      if (stream.status === 401 || stream.status === 403)
        throw new GatewayError(
          'mcp_remote_status',
          `the remote MCP server answered HTTP ${stream.status}`,
          {
            detail: { status: stream.status },
          },
        );
      return undefined;
    }
    const channel = new SseChannel(http, target, stream, limits);
    return (await channel.#start()) ? channel : undefined;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get revision(): string {
    return HTTP_SSE_VERSION;
  }

  /** One request: POSTed to the message endpoint, answered on the stream. */
  request(
    method: string,
    params: Record<string, unknown>,
    options: {
      cancel?: CancelSignal;
      onNotification?: (message: RpcNotification) => void;
      onRequest?: (request: RpcRequest) => Promise<RpcAnswer>;
      trace?: TraceCarrier | undefined;
    } = {},
  ): Promise<RpcResponse> {
    if (this.#closed) return Promise.reject(new Error('closed'));
    const id = `pc-sse-${this.#nextId++}`;
    return new Promise<RpcResponse>((resolve, reject) => {
      const deadline = new PausableTimer(this.#deadlineMs, () => {
        settle();
        reject(
          new GatewayError(
            'upstream_deadline_exceeded',
            `no answer to ${method} within ${this.#deadlineMs} ms`,
          ),
        );
      });
      const stopCancel = options.cancel?.onCancel(() => {
        settle();
        this.notify('notifications/cancelled', {
          requestId: id,
          reason: 'the agent cancelled the call',
        });
        reject(cancelledError());
      });
      const settle = () => {
        deadline.clear();
        stopCancel?.();
        this.#waiting.delete(id);
      };
      const meta = params._meta as { progressToken?: unknown } | undefined;
      this.#waiting.set(id, {
        resolve: (response) => {
          settle();
          resolve(response);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
        ...(options.onNotification ? { onNotification: options.onNotification } : {}),
        ...(options.onRequest ? { onRequest: options.onRequest } : {}),
        progressToken: meta?.progressToken,
        pause: () => deadline.pause(),
      });
      this.#post(requestMessage(id, method, params), options.trace).catch((error: unknown) => {
        settle();
        reject(error);
      });
    });
  }

  notify(method: string, params: Record<string, unknown>): void {
    this.#post(notificationMessage(method, params)).catch(() => {});
  }

  close(): void {
    this.#end(new GatewayError('upstream_unreachable', 'the remote MCP event stream was closed'));
    this.#stream.close();
  }

  async #post(
    message: RequestMessage | NotificationMessage | OutgoingMessage,
    trace?: TraceCarrier,
  ): Promise<void> {
    if (!this.#messageUrl) throw new Error('no message endpoint');
    const reply = await this.#http.send(
      {
        method: 'POST',
        url: this.#messageUrl,
        headers: { ...this.#target.headers, 'content-type': 'application/json' },
        body: JSON.stringify(message),
        redactor: this.#target.redactor,
        trace,
      },
      { maxReplyBytes: 65_536 },
    );
    if (reply.status >= 300)
      throw new GatewayError(
        'mcp_remote_status',
        `the remote MCP server answered HTTP ${reply.status}`,
        {
          detail: { status: reply.status },
        },
      );
  }

  /** Reads until the endpoint event (true), then keeps reading in the background. */
  async #start(): Promise<boolean> {
    const reader = new EventStreamReader();
    const iterator = this.#stream.chunks[Symbol.asyncIterator]();
    const pending: ServerSentEvent[] = [];
    while (this.#messageUrl === undefined) {
      const next = await iterator.next().catch(() => ({ done: true as const, value: undefined }));
      if (next.done) return false;
      for (const event of reader.push(next.value)) {
        if (this.#messageUrl === undefined && event.event === 'endpoint') {
          const url = new URL(event.data.trim(), this.#target.url);
          if (url.origin !== this.#target.url.origin) {
            this.#stream.close();
            throw new GatewayError(
              'remote_not_mcp',
              'url: the server named a message endpoint on another origin, which Portcullis does not follow',
              { field: 'url' },
            );
          }
          this.#messageUrl = url;
        } else pending.push(event);
      }
    }
    for (const event of pending) this.#dispatch(event);
    void this.#read(reader, iterator);
    return true;
  }

  async #read(reader: EventStreamReader, iterator: AsyncIterator<Buffer>): Promise<void> {
    try {
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        for (const event of reader.push(next.value)) this.#dispatch(event);
      }
      this.#end(new GatewayError('upstream_unreachable', 'the remote MCP event stream ended'));
    } catch (error) {
      this.#end(error);
    }
  }

  #dispatch({ event, data }: ServerSentEvent): void {
    if (event !== 'message' && event !== '') return;
    let parsed: Parsed;
    try {
      parsed = messageOf(this.#target.redactor.text(data));
    } catch {
      return;
    }
    if (parsed.kind === 'response') {
      const waiting = this.#waiting.get(parsed.message.id);
      if (!waiting) return;
      if (Buffer.byteLength(data) > this.#maxAnswerBytes)
        waiting.reject(
          new GatewayError('mcp_remote_response_too_large', undefined, {
            detail: { maxBytes: this.#maxAnswerBytes },
          }),
        );
      else waiting.resolve(parsed.message);
    } else if (parsed.kind === 'notification') {
      this.onServerNotification?.(parsed.message);
      const token = parsed.message.params?.progressToken;
      for (const waiting of this.#waiting.values())
        if (token === undefined || waiting.progressToken === token)
          waiting.onNotification?.(parsed.message);
    } else {
      const request = parsed.message;
      const relaying = [...this.#waiting.values()].filter((waiting) => waiting.onRequest);
      const asking = relaying.length === 1 ? relaying[0]! : undefined;
      // The call's deadline, and the stream's reply timeout, stop while the agent
      // answers: that time is not the server's.
      const resumes = asking ? [asking.pause(), this.#stream.pause()] : [];
      const answer: Promise<RpcAnswer> = asking
        ? asking.onRequest!(request)
        : Promise.resolve(notRelayed(request.method));
      answer
        .finally(() => {
          for (const resume of resumes) resume();
        })
        .then((reply) => this.#post(answerMessage(request.id, reply)))
        .catch(() => {});
    }
  }

  #end(error: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const waiting of [...this.#waiting.values()]) waiting.reject(error);
  }
}
