/**
 * The one outbound HTTP client: every call the gateway makes to a provider
 * goes through `send` (and so must any later outbound caller).
 *
 * - Connections come from one undici `Agent` (kept alive and reused per origin).
 * - Each new connection resolves its host once through the guarded lookup and
 *   connects to the checked addresses only; literal IP hosts are checked here.
 * - Redirects are never followed: a 3xx is a reply like any other.
 * - The reply body is read with a running byte cap and the request is aborted
 *   as soon as it is exceeded.
 * - Errors say whether the request may have reached the server and carry no
 *   header, body, userinfo or caller-named secret; replies are scrubbed of
 *   those secrets too.
 */
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { Agent, type Dispatcher } from 'undici';
import { BoundedCache } from '../base/bounded-cache.ts';
import type { CancelSignal } from '../base/cancellation.ts';
import type { GatewayError } from '../base/errors.ts';
import { type TraceCarrier, withTraceHeaders } from '../base/tracing.ts';
import { AddressRefusedError, createGuardedLookup, refusedRange } from './address-policy.ts';
import {
  classifyFailure,
  deadlineExceeded,
  type FailureContext,
  outboundError,
  replyTooLarge,
} from './outbound-errors.ts';
import { NO_SECRETS, type Redactor } from './redaction.ts';
import { flatHeaders } from './reply-headers.ts';
import { StreamedExchange, type StreamedReply } from './streamed-exchange.ts';

export interface OutboundPolicy {
  /** Development policy: loopback and private networks are reachable. */
  allowPrivateNetworks: boolean;
  /** Time to open a connection, DNS included. Default 5000. */
  connectTimeoutMs?: number;
  /** Time until the reply headers, and the longest pause between body chunks. Default 30000. */
  replyTimeoutMs?: number;
  /** The most reply body bytes read. Default 1 MiB. */
  maxReplyBytes?: number;
  /**
   * The whole exchange, from sending to the reply's last byte, however slowly
   * it trickles in (the reply timeout limits only each pause). Default 60000.
   */
  deadlineMs?: number;
  /**
   * Keep connections open for the next request to the same origin. Default
   * true. False opens a connection per request (undici's `pipelining: 0`):
   * for rare exchanges (OAuth sign-in and refresh) that must never be sent
   * on a connection the server has just closed as idle, since a request that
   * is not idempotent cannot be retried.
   */
  reuseConnections?: boolean;
  /**
   * PEM certificates trusted beside Node's own roots (a test's self-signed
   * https upstream; an operator uses `NODE_EXTRA_CA_CERTS`). Default: none.
   */
  trustedCertificates?: readonly string[];
}

export interface OutboundRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /**
   * Built from the values never to show (credentials, tokens): they are
   * redacted from every error, and from the reply body too, so a server that
   * echoes one hands it to no one. Default: none.
   */
  redactor?: Redactor;
  /** The trace the request is part of (an upstream span's): sent as `traceparent`, `tracestate`. */
  trace?: TraceCarrier | undefined;
}

export interface OutboundReply {
  status: number;
  /** Lowercase names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  body: Buffer;
  bytes: number;
}

export interface SendOptions {
  cancel?: CancelSignal;
  /** A lower (or higher) body cap for this call than the policy's. */
  maxReplyBytes?: number;
  /** A longer deadline for this exchange (an event stream that stays open). */
  deadlineMs?: number;
}

export interface GuardedClient {
  send(request: OutboundRequest, options?: SendOptions): Promise<OutboundReply>;
  /** The reply's head once it arrives, its body as a stream of chunks (same cap, same deadline). */
  open(request: OutboundRequest, options?: SendOptions): Promise<StreamedReply>;
  /** Waits for the requests under way, then closes every connection. */
  close(): Promise<void>;
  /** Fails the requests under way at once (as cancelled) and closes every connection. */
  abort(): Promise<void>;
}

const OUTBOUND_DEFAULTS = {
  connectTimeoutMs: 5_000,
  replyTimeoutMs: 30_000,
  maxReplyBytes: 1_048_576,
  deadlineMs: 60_000,
} as const;

export function createGuardedClient(policy: OutboundPolicy): GuardedClient {
  const connectTimeoutMs = policy.connectTimeoutMs ?? OUTBOUND_DEFAULTS.connectTimeoutMs;
  const replyTimeoutMs = policy.replyTimeoutMs ?? OUTBOUND_DEFAULTS.replyTimeoutMs;
  const maxReplyBytes = policy.maxReplyBytes ?? OUTBOUND_DEFAULTS.maxReplyBytes;
  const deadlineMs = policy.deadlineMs ?? OUTBOUND_DEFAULTS.deadlineMs;
  const agent = new Agent({
    connect: {
      timeout: connectTimeoutMs,
      lookup: createGuardedLookup(policy),
      ...(policy.trustedCertificates?.length
        ? { ca: [...rootCertificates, ...policy.trustedCertificates] }
        : {}),
    },
    headersTimeout: replyTimeoutMs,
    bodyTimeout: replyTimeoutMs,
    ...(policy.reuseConnections === false ? { pipelining: 0 } : {}),
  });

  /** A literal address's verdict (a refused range's name, or '' when allowed), kept per address. */
  const literalVerdicts = new BoundedCache<string>(1_000);
  const verdictOf = (address: string) => refusedRange(address, policy) ?? '';

  /** The checks before anything is sent; throws what the request fails with. */
  function preflight(request: OutboundRequest, options: SendOptions): FailureContext {
    const { url, redactor = NO_SECRETS } = request;
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TypeError(`outbound URLs are http or https, not ${url.protocol}`);
    if (url.username !== '' || url.password !== '')
      throw new TypeError(
        `outbound URL ${redactor.url(url)} embeds credentials; send them in a header`,
      );
    const context: FailureContext = {
      method: request.method,
      url,
      redactor,
      requestSent: false,
    };
    const literal = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    if (isIP(literal) !== 0) {
      const range = literalVerdicts.get(literal, verdictOf);
      if (range !== '') throw classifyFailure(new AddressRefusedError(range), context);
    }
    if (options.cancel?.cancelled) throw abortError(context);
    return context;
  }

  function send(request: OutboundRequest, options: SendOptions = {}): Promise<OutboundReply> {
    const { redactor = NO_SECRETS } = request;
    let context: FailureContext;
    try {
      context = preflight(request, options);
    } catch (error) {
      return Promise.reject(error);
    }
    const { url } = context;
    const { cancel } = options;

    return new Promise<OutboundReply>((resolve, reject) => {
      const exchange = new Exchange(
        options.maxReplyBytes ?? maxReplyBytes,
        context,
        deadlineMs,
        (reply) => {
          stopListening?.();
          const body = redactor.bytes(reply.body);
          resolve(body === reply.body ? reply : { ...reply, body });
        },
        (error) => {
          stopListening?.();
          reject(error);
        },
      );
      const stopListening = cancel?.onCancel(() => exchange.abort(abortError(context)));
      dispatch(request, url, exchange);
    });
  }

  /** As `send`, but the body is read as it arrives (the reader redacts what it reads). */
  function open(request: OutboundRequest, options: SendOptions = {}): Promise<StreamedReply> {
    let context: FailureContext;
    try {
      context = preflight(request, options);
    } catch (error) {
      return Promise.reject(error);
    }
    const { url } = context;
    const { cancel } = options;
    return new Promise<StreamedReply>((resolve, reject) => {
      const exchange = new StreamedExchange(
        options.maxReplyBytes ?? maxReplyBytes,
        context,
        { deadlineMs: options.deadlineMs ?? deadlineMs, idleMs: replyTimeoutMs },
        resolve,
        reject,
        // Ended, failed or closed: a cancellation has nothing left to stop.
        () => stopListening?.(),
      );
      const stopListening = cancel?.onCancel(() => exchange.abort(abortError(context)));
      // The exchange keeps the reply timeout itself, so that a pause can stop it.
      dispatch(request, url, exchange, { bodyTimeout: 0 });
    });
  }

  /** Hands the request, to the address it was checked for, to the pinned agent. */
  function dispatch(
    request: OutboundRequest,
    url: URL,
    handler: Dispatcher.DispatchHandler,
    timeouts: { bodyTimeout?: number } = {},
  ): void {
    agent.dispatch(
      {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: request.method as Dispatcher.HttpMethod,
        // Made in a span (tracing on), the upstream hears of the trace: W3C `traceparent`.
        headers: withTraceHeaders(request.headers, request.trace),
        body: request.body ?? null,
        ...timeouts,
      },
      handler,
    );
  }

  let aborted = false;
  return {
    send,
    open,
    close: () => (aborted ? Promise.resolve() : agent.close()),
    abort: () => {
      aborted = true;
      return agent.destroy();
    },
  };
}

function abortError(context: FailureContext): GatewayError {
  return outboundError('upstream_timeout', 'the call was cancelled', context, {
    phase: context.requestSent ? 'reply' : 'connect',
    requestSent: context.requestSent,
    cause: 'aborted',
  });
}

/**
 * One request/reply: collects the body under the cap and settles once, by its
 * deadline at the latest. The deadline is a timer of its own: timers of one
 * duration share a list in Node, so it costs a list insertion and removal
 * (measured: a shared set swept once a second kept every exchange alive
 * through the next scavenge and cost more).
 */
class Exchange implements Dispatcher.DispatchHandler {
  readonly #limit: number;
  readonly #deadlineMs: number;
  readonly #context: FailureContext;
  readonly #resolve: (reply: OutboundReply) => void;
  readonly #reject: (error: Error) => void;
  #controller: Dispatcher.DispatchController | undefined;
  #pendingAbort: Error | undefined;
  #settled = false;
  #status = 0;
  #headers: Record<string, string> = {};
  #chunks: Buffer[] = [];
  #bytes = 0;
  readonly #deadline: NodeJS.Timeout;

  constructor(
    limit: number,
    context: FailureContext,
    deadlineMs: number,
    resolve: (reply: OutboundReply) => void,
    reject: (error: Error) => void,
  ) {
    this.#limit = limit;
    this.#context = context;
    this.#deadlineMs = deadlineMs;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#deadline = setTimeout(() => this.#expire(), deadlineMs).unref();
  }

  /** Fails the exchange now and stops the request wherever it is. */
  abort(error: Error): void {
    this.#fail(error);
    if (this.#controller) this.#controller.abort(error);
    else this.#pendingAbort = error;
  }

  /** The total deadline passed: whatever has arrived, the exchange ends now. */
  #expire(): void {
    this.abort(deadlineExceeded(this.#context, this.#deadlineMs));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    // From here the request is on a connected socket: it may reach the server.
    this.#context.requestSent = true;
    if (this.#pendingAbort) controller.abort(this.#pendingAbort);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.#status = statusCode;
    const flat = flatHeaders(headers);
    this.#headers = flat;
    // A declared length over the cap fails now; HEAD, 1xx, 204 and 304 carry no body.
    const bodyless =
      this.#context.method.toUpperCase() === 'HEAD' ||
      statusCode < 200 ||
      statusCode === 204 ||
      statusCode === 304;
    const declared = Number(flat['content-length']);
    if (!bodyless && Number.isFinite(declared) && declared > this.#limit) {
      this.#controller = controller;
      this.abort(this.#tooLarge());
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#bytes += chunk.length;
    if (this.#bytes > this.#limit) {
      this.#controller = controller;
      this.abort(this.#tooLarge());
      return;
    }
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#deadline);
    const body = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
    this.#resolve({ status: this.#status, headers: this.#headers, body, bytes: this.#bytes });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.#fail(classifyFailure(error, this.#context));
  }

  #fail(error: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#deadline);
    this.#chunks = [];
    this.#reject(error);
  }

  #tooLarge(): GatewayError {
    return replyTooLarge(this.#context, this.#limit);
  }
}
