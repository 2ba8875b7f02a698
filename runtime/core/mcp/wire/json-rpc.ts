/**
 * JSON-RPC 2.0 messages as MCP has them, for both ends of the wire: one cheap
 * structural check of what a peer sent (no schema library on the hot path),
 * used by the endpoint on what a client sends and by the forwarding client on
 * what a remote server sends, and the messages either end writes.
 */
import { isPlainObject } from '../../base/json-value.ts';

/** A string or an integer: MCP never has a null id. */
export type JsonRpcId = string | number;

/** One message a peer sent, classified. */
export type IncomingMessage =
  | { kind: 'request'; id: JsonRpcId; method: string; params: Record<string, unknown> | undefined }
  | { kind: 'notification'; method: string; params: Record<string, unknown> | undefined }
  /** A reply to a request the other end sent (a server's answer, or a legacy client's). */
  | { kind: 'response'; id: JsonRpcId; result?: unknown; error?: unknown }
  /** Not a JSON-RPC 2.0 message MCP allows; `why` says what is wrong, for a message. */
  | { kind: 'invalid'; id: JsonRpcId | null; why: string };

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** A notification as read or written (no `params` member when it has none). */
export interface RpcNotification {
  method: string;
  params?: Record<string, unknown>;
}

export interface RpcRequest extends RpcNotification {
  id: JsonRpcId;
}

/** A response read from a peer: its result (an object in MCP), or its error. */
export interface RpcResponse {
  id: JsonRpcId;
  result?: Record<string, unknown>;
  error?: RpcErrorObject;
}

/** What a request is answered with: its result, or an error. */
export type RpcAnswer = { result: Record<string, unknown> } | { error: RpcErrorObject };

export type OutgoingMessage =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId | null; error: RpcErrorObject };

export interface RequestMessage {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params: Record<string, unknown>;
}

export interface NotificationMessage {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/**
 * Classifies one JSON value. A request needs `jsonrpc: "2.0"`, a string
 * method, a string or integer id (never null in MCP) and, when present, object
 * params; a notification is the same without an id; a response has an id and
 * a `result` or an `error`.
 */
export function classifyMessage(value: unknown): IncomingMessage {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0') {
    return {
      kind: 'invalid',
      id: isPlainObject(value) && isId(value.id) ? value.id : null,
      why: 'a message is not a JSON-RPC 2.0 object',
    };
  }
  const { id, method, params } = value;
  if (typeof method !== 'string') {
    if (isId(id) && 'result' in value) return { kind: 'response', id, result: value.result };
    if (isId(id) && 'error' in value) return { kind: 'response', id, error: value.error };
    return {
      kind: 'invalid',
      id: isId(id) ? id : null,
      why: isId(id)
        ? 'a response has neither a result nor an error'
        : 'a response has no usable id',
    };
  }
  if (params !== undefined && !isPlainObject(params)) {
    return {
      kind: 'invalid',
      id: isId(id) ? id : null,
      why: `the params of ${method.slice(0, 100)} are not an object`,
    };
  }
  if (id === undefined) return { kind: 'notification', method, params };
  if (!isId(id))
    return {
      kind: 'invalid',
      id: null,
      why: `the id of ${method.slice(0, 100)} is not a string or an integer`,
    };
  return { kind: 'request', id, method, params };
}

export function requestMessage(
  id: JsonRpcId,
  method: string,
  params: Record<string, unknown>,
): RequestMessage {
  return { jsonrpc: '2.0', id, method, params };
}

export function notificationMessage(
  method: string,
  params?: Record<string, unknown>,
): NotificationMessage {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

export function resultMessage(id: JsonRpcId, result: unknown): OutgoingMessage {
  return { jsonrpc: '2.0', id, result };
}

/** An answer as given (its error object kept as it is), as the reply to request `id`. */
export function answerMessage(id: JsonRpcId, answer: RpcAnswer): OutgoingMessage {
  return { jsonrpc: '2.0', id, ...answer };
}

export function errorMessage(
  id: JsonRpcId | null,
  code: number,
  message: string,
  data?: unknown,
): OutgoingMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  };
}
