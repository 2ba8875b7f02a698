/**
 * The framework-free HTTP shapes the endpoint reads and writes, and the
 * replies it builds: a single JSON body (one write, with its length), the same
 * messages as SSE events for a client that accepts only `text/event-stream`,
 * or an event stream that stays open while a request runs.
 */
import type { Cancellation } from '../../base/cancellation.ts';
import { publicError, REASONS, type ReasonCode } from '../../base/errors.ts';
import type { SpanParent } from '../../base/tracing.ts';
import type { EventStream } from './event-stream.ts';
import { EVENT_STREAM_TYPE, messageEvent } from './event-stream-codec.ts';
import { errorMessage, type JsonRpcId, type OutgoingMessage } from './json-rpc.ts';
import { stringifyMessage } from './json-text.ts';

export type HeaderBag = Record<string, string | string[] | undefined>;

export interface McpHttpRequest {
  method: string;
  /** Lowercase names, as Node gives them. */
  headers: HeaderBag;
  /** The header lines as received (`[name, value, ...]`), where the adapter has them: a repeated Host shows only here. */
  rawHeaders?: readonly string[];
  /** The parsed JSON body, or undefined. */
  body: unknown;
  /** The body was not valid JSON. */
  rawBodyError?: boolean;
  /** The body was over the adapter's size limit. */
  bodyTooLarge?: boolean;
  /**
   * Arranges for `call` to be cancelled when the client goes away before the
   * answer is written; adapters that can tell set it. A hook rather than a
   * per-request signal, so only a tool call pays for listening.
   */
  cancelOnDisconnect?: (call: Cancellation) => void;
  /** The request's own span (`server/request-span.ts`): the parent of the spans of its work. */
  span?: SpanParent;
}

export interface McpHttpResponse {
  status: number;
  headers: Record<string, string>;
  /** The whole body, written at once. */
  body?: string;
  /** Or an event stream: the adapter writes the headers, then each event as it comes. */
  stream?: EventStream;
}

export type ReplyFormat = 'json' | 'sse';

export const SESSION_HEADER = 'mcp-session-id';
export const PROTOCOL_VERSION_HEADER = 'mcp-protocol-version';
export const METHOD_HEADER = 'mcp-method';
export const NAME_HEADER = 'mcp-name';
/** Followed by the name a tool parameter declares in `x-mcp-header`. */
export const PARAM_HEADER_PREFIX = 'mcp-param-';

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': EVENT_STREAM_TYPE,
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
};

/** One header's value; a repeated header reads as `''`, which every check refuses. */
export function headerValue(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined || typeof value === 'string') return value;
  return value.length === 1 ? value[0] : '';
}

export function isJsonContentType(value: string | undefined): boolean {
  if (value === 'application/json') return true;
  if (value === undefined) return false;
  const semicolon = value.indexOf(';');
  const essence = semicolon < 0 ? value : value.slice(0, semicolon);
  return essence.trim().toLowerCase() === 'application/json';
}

/**
 * How to answer a POST, from its Accept header: JSON when the client accepts
 * both JSON and SSE, one SSE stream when it accepts only SSE, and nothing
 * (406) when it does not accept SSE, as the SDK's server transport does.
 */
export function replyFormatFor(accept: string | undefined): ReplyFormat | undefined {
  if (accept === undefined) return undefined;
  const lower = accept.toLowerCase();
  if (!lower.includes(EVENT_STREAM_TYPE)) return undefined;
  return lower.includes('application/json') ? 'json' : 'sse';
}

export interface ErrorReplyOptions {
  /** The request's id, when it had one that could be read. */
  id?: JsonRpcId | null;
  /** A more specific public message than the table's. */
  message?: string;
  data?: unknown;
  headers?: Record<string, string>;
  /** The HTTP status, when the wire answers JSON-RPC errors with another (legacy sessions: 200). */
  status?: number;
}

/**
 * An error answered as JSON-RPC: HTTP status, JSON-RPC code and public message
 * from the one reason table, the request's id when it had one.
 */
export function errorReply(code: ReasonCode, options: ErrorReplyOptions = {}): McpHttpResponse {
  const reason = REASONS[code];
  return {
    status: options.status ?? reason.status,
    headers: { 'Content-Type': 'application/json', ...options.headers },
    body: JSON.stringify(rpcErrorOf(code, options)),
  };
}

/** The JSON-RPC error message for a reason code. */
export function rpcErrorOf(
  code: ReasonCode,
  options: Pick<ErrorReplyOptions, 'id' | 'message' | 'data'> = {},
): OutgoingMessage {
  const reason = REASONS[code];
  return errorMessage(
    options.id ?? null,
    reason.rpc,
    options.message ?? reason.message,
    options.data,
  );
}

/** An error thrown on the way (a wire check, the shared state), as its reply: only what may be shown. */
export function errorReplyOf(error: unknown, id?: JsonRpcId | null): McpHttpResponse {
  const shown = publicError(error);
  return errorReply(shown.code, {
    id: id ?? null,
    message: shown.message,
    ...(shown.detail === undefined ? {} : { data: shown.detail }),
  });
}

export function messagesReply(
  messages: OutgoingMessage | OutgoingMessage[],
  format: ReplyFormat,
  headers: Record<string, string> = {},
  status = 200,
): McpHttpResponse {
  if (format === 'json') {
    const body = Array.isArray(messages)
      ? `[${messages.map(stringifyMessage).join(',')}]`
      : stringifyMessage(messages);
    return { status, headers: { 'Content-Type': 'application/json', ...headers }, body };
  }
  let body = '';
  for (const message of Array.isArray(messages) ? messages : [messages])
    body += messageEvent(message);
  return { status, headers: { ...SSE_HEADERS, ...headers }, body };
}

export function sessionHeaders(sessionId: string | undefined): Record<string, string> {
  return sessionId === undefined ? {} : { 'Mcp-Session-Id': sessionId };
}
