/**
 * JSON-RPC 2.0 messages as the endpoint sees them: a cheap structural check of
 * what a client sent (no schema library on the hot path) and the replies it
 * gets back.
 */
import { isPlainObject } from '../../base/json-value.ts';

export type JsonRpcId = string | number;

/** One message a client sent, classified. */
export type IncomingMessage =
  | { kind: 'request'; id: JsonRpcId; method: string; params: Record<string, unknown> | undefined }
  | { kind: 'notification'; method: string; params: Record<string, unknown> | undefined }
  /** A client's reply to a request the server sent it (legacy sessions only). */
  | { kind: 'response'; id: JsonRpcId; result?: unknown; error?: unknown }
  | { kind: 'invalid'; id: JsonRpcId | null };

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type OutgoingMessage =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId | null; error: RpcErrorObject };

export function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/**
 * Classifies one JSON value. A request needs `jsonrpc: "2.0"`, a string
 * method, a string or integer id (never null in MCP) and, when present, object
 * params; a notification is the same without an id.
 */
export function classifyMessage(value: unknown): IncomingMessage {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0') {
    return { kind: 'invalid', id: isPlainObject(value) && isId(value.id) ? value.id : null };
  }
  const { id, method, params } = value;
  if (typeof method !== 'string') {
    if (isId(id) && 'result' in value) return { kind: 'response', id, result: value.result };
    if (isId(id) && 'error' in value) return { kind: 'response', id, error: value.error };
    return { kind: 'invalid', id: isId(id) ? id : null };
  }
  if (params !== undefined && !isPlainObject(params)) {
    return { kind: 'invalid', id: isId(id) ? id : null };
  }
  if (id === undefined) return { kind: 'notification', method, params };
  if (!isId(id)) return { kind: 'invalid', id: null };
  return { kind: 'request', id, method, params };
}

export function resultMessage(id: JsonRpcId, result: unknown): OutgoingMessage {
  return { jsonrpc: '2.0', id, result };
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
