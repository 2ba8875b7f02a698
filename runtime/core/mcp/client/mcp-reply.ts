/**
 * Reading a remote MCP server's HTTP reply to one JSON-RPC request: a JSON
 * body, or an event stream whose events are JSON-RPC messages, ending with
 * the response to the request. What came before the response (progress, log
 * messages, requests of the server) is kept in order. A reply that is not
 * JSON is `mcp_remote_invalid_json`; JSON that is not a JSON-RPC answer to the
 * request (another id, no result and no error, not an object) is
 * `mcp_remote_malformed_response`. Both fail only the call they belong to.
 */
import { isJsonMediaType, mediaTypeEssence } from '../../../../generated/catalog-rules.ts';
import { GatewayError } from '../../base/errors.ts';
import { isPlainObject } from '../../base/json-value.ts';
import type { OutboundReply } from '../../outbound/guarded-client.ts';

export type RpcId = string | number;

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface RpcResponse {
  id: RpcId;
  result?: Record<string, unknown>;
  error?: RpcError;
}

export interface RpcNotification {
  method: string;
  params?: Record<string, unknown>;
}

export interface RpcRequest extends RpcNotification {
  id: RpcId;
}

export interface UpstreamMessages {
  response: RpcResponse;
  /** Notifications and requests the server sent before its response, in order. */
  before: Array<RpcNotification | RpcRequest>;
}

export type Parsed =
  | { kind: 'response'; message: RpcResponse }
  | { kind: 'request'; message: RpcRequest }
  | { kind: 'notification'; message: RpcNotification };

export function readMcpReply(reply: OutboundReply, id: RpcId): UpstreamMessages {
  const type = reply.headers['content-type'] ?? '';
  if (mediaTypeEssence(type) === 'text/event-stream') return fromEvents(reply.body, id);
  if (!isJsonMediaType(type) && type !== '')
    throw malformed(`the reply is ${mediaTypeEssence(type)}, not JSON or an event stream`);
  const value = parseJson(reply.body.toString('utf8'));
  const messages = Array.isArray(value) ? value : [value];
  const before: UpstreamMessages['before'] = [];
  for (const item of messages) {
    const parsed = classify(item);
    if (parsed.kind === 'response' && parsed.message.id === id)
      return { response: parsed.message, before };
    if (parsed.kind !== 'response') before.push(parsed.message);
  }
  throw malformed('the reply does not answer the request (no message with its id)');
}

/** The JSON-RPC messages of an event stream, up to the response to `id`. */
function fromEvents(body: Buffer, id: RpcId): UpstreamMessages {
  const before: UpstreamMessages['before'] = [];
  for (const data of eventData(body.toString('utf8'))) {
    const parsed = classify(parseJson(data));
    if (parsed.kind === 'response') {
      if (parsed.message.id === id) return { response: parsed.message, before };
      continue;
    }
    before.push(parsed.message);
  }
  throw malformed('the event stream ended without an answer to the request');
}

/**
 * The `data` of each event (WHATWG server-sent events: lines joined by LF),
 * skipping empty ones: an event whose data is empty carries no message (the
 * priming event a 2025-11-25 server sends first, an id for resuming, as the
 * reference everything-server does).
 */
export function eventData(text: string): string[] {
  const events: string[] = [];
  let data: string[] = [];
  const dispatch = () => {
    const joined = data.join('\n');
    if (joined !== '') events.push(joined);
    data = [];
  };
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      dispatch();
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
  }
  dispatch();
  return events;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new GatewayError('mcp_remote_invalid_json');
  }
}

export function classify(value: unknown): Parsed {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0')
    throw malformed('a message is not a JSON-RPC 2.0 object');
  const { id, method, params } = value;
  const validId = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
  if (typeof method === 'string') {
    if (params !== undefined && !isPlainObject(params))
      throw malformed(`the params of ${method} are not an object`);
    const base = params === undefined ? { method } : { method, params };
    return validId
      ? { kind: 'request', message: { ...base, id } }
      : { kind: 'notification', message: base };
  }
  if (!validId) throw malformed('a response has no usable id');
  if (isPlainObject(value.error)) {
    const { code, message, data } = value.error;
    if (typeof code !== 'number' || typeof message !== 'string')
      throw malformed('an error response has no code or message');
    return {
      kind: 'response',
      message: { id, error: { code, message, ...(data === undefined ? {} : { data }) } },
    };
  }
  if (!isPlainObject(value.result)) throw malformed('a response has neither a result nor an error');
  return { kind: 'response', message: { id, result: value.result } };
}

function malformed(why: string): GatewayError {
  return new GatewayError(
    'mcp_remote_malformed_response',
    `the remote MCP server's reply is not a JSON-RPC answer to the request: ${why}`,
  );
}

/** What a server's request gets when no agent can be asked it here: "method not found". */
export function notRelayed(method: string): { error: { code: number; message: string } } {
  return {
    error: {
      code: -32601,
      message: `Portcullis does not relay ${method.slice(0, 60)} to the agent here`,
    },
  };
}
