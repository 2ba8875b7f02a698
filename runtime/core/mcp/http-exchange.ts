/**
 * The framework-free HTTP shapes the endpoint reads and writes, and the
 * replies it builds: a single JSON body, or the same messages as SSE events
 * for a client that accepts only `text/event-stream`.
 */
import type { Cancellation } from '../cancellation.ts';
import { errorMessage, type OutgoingMessage } from './json-rpc.ts';
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
}

export interface McpHttpResponse {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

export type ReplyFormat = 'json' | 'sse';

export const SESSION_HEADER = 'mcp-session-id';
export const PROTOCOL_VERSION_HEADER = 'mcp-protocol-version';

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
  if (!lower.includes('text/event-stream')) return undefined;
  return lower.includes('application/json') ? 'json' : 'sse';
}

/** A refusal at the HTTP level: a JSON-RPC error without an id. */
export function refusal(
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
): McpHttpResponse {
  return {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(errorMessage(null, code, message)),
  };
}

export function messagesReply(
  messages: OutgoingMessage | OutgoingMessage[],
  format: ReplyFormat,
  sessionId: string | undefined,
  status = 200,
): McpHttpResponse {
  const headers: Record<string, string> =
    format === 'json'
      ? { 'Content-Type': 'application/json' }
      : { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' };
  if (sessionId !== undefined) headers['Mcp-Session-Id'] = sessionId;
  if (format === 'json') {
    const body = Array.isArray(messages)
      ? `[${messages.map(stringifyMessage).join(',')}]`
      : stringifyMessage(messages);
    return { status, headers, body };
  }
  let body = '';
  for (const message of Array.isArray(messages) ? messages : [messages]) {
    body += `event: message\ndata: ${stringifyMessage(message)}\n\n`;
  }
  return { status, headers, body };
}

export function accepted(sessionId: string | undefined): McpHttpResponse {
  return { status: 202, headers: sessionId === undefined ? {} : { 'Mcp-Session-Id': sessionId } };
}
