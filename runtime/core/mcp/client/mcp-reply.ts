/**
 * Reading a remote MCP server's HTTP reply to one JSON-RPC request: a JSON
 * body, or an event stream whose events are JSON-RPC messages, ending with
 * the response to the request. What came before the response (progress, log
 * messages, requests of the server) is kept in order. A reply that is not
 * JSON is `mcp_remote_invalid_json`; JSON that is not a JSON-RPC answer to the
 * request (another id, no result and no error, not an object) is
 * `mcp_remote_malformed_response`. Both fail only the call they belong to.
 * The framing and the event-stream decoding are the wire's, shared with the
 * endpoint.
 */
import { isJsonMediaType, mediaTypeEssence } from '../../../../generated/catalog-rules.ts';
import { GatewayError } from '../../base/errors.ts';
import { isPlainObject } from '../../base/json-value.ts';
import type { OutboundReply } from '../../outbound/guarded-client.ts';
import { eventData, isEventStreamType } from '../wire/event-stream-codec.ts';
import {
  classifyMessage,
  type JsonRpcId,
  type RpcAnswer,
  type RpcNotification,
  type RpcRequest,
  type RpcResponse,
} from '../wire/json-rpc.ts';

export interface UpstreamMessages {
  response: RpcResponse;
  /** Notifications and requests the server sent before its response, in order. */
  before: Array<RpcNotification | RpcRequest>;
}

export type Parsed =
  | { kind: 'response'; message: RpcResponse }
  | { kind: 'request'; message: RpcRequest }
  | { kind: 'notification'; message: RpcNotification };

export function readMcpReply(reply: OutboundReply, id: JsonRpcId): UpstreamMessages {
  const type = reply.headers['content-type'] ?? '';
  if (isEventStreamType(type)) return fromEvents(reply.body, id);
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
function fromEvents(body: Buffer, id: JsonRpcId): UpstreamMessages {
  const before: UpstreamMessages['before'] = [];
  for (const data of eventData(body.toString('utf8'))) {
    const parsed = messageOf(data);
    if (parsed.kind === 'response') {
      if (parsed.message.id === id) return { response: parsed.message, before };
      continue;
    }
    before.push(parsed.message);
  }
  throw unanswered();
}

/** One message's text (an event's data), read. */
export function messageOf(text: string): Parsed {
  return classify(parseJson(text));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new GatewayError('mcp_remote_invalid_json');
  }
}

/** A message of the server, classified as the endpoint classifies a client's, and a response read whole. */
function classify(value: unknown): Parsed {
  const message = classifyMessage(value);
  switch (message.kind) {
    case 'invalid':
      throw malformed(message.why);
    case 'request': {
      const { id, method, params } = message;
      return {
        kind: 'request',
        message: params === undefined ? { method, id } : { method, params, id },
      };
    }
    case 'notification': {
      const { method, params } = message;
      return {
        kind: 'notification',
        message: params === undefined ? { method } : { method, params },
      };
    }
    case 'response':
      return { kind: 'response', message: responseOf(message.id, message) };
  }
}

/** A response's error (a code and a message) or its result (an object in MCP). */
function responseOf(
  id: JsonRpcId,
  { result, error }: { result?: unknown; error?: unknown },
): RpcResponse {
  if (isPlainObject(error)) {
    const { code, message, data } = error;
    if (typeof code !== 'number' || typeof message !== 'string')
      throw malformed('an error response has no code or message');
    return { id, error: { code, message, ...(data === undefined ? {} : { data }) } };
  }
  if (!isPlainObject(result)) throw malformed('a response has neither a result nor an error');
  return { id, result };
}

function malformed(why: string): GatewayError {
  return new GatewayError(
    'mcp_remote_malformed_response',
    `the remote MCP server's reply is not a JSON-RPC answer to the request: ${why}`,
  );
}

/** The event stream ended before the answer to the request came. */
export function unanswered(): GatewayError {
  return malformed('the event stream ended without an answer to the request');
}

/** What a server's request gets when no agent can be asked it here: "method not found". */
export function notRelayed(method: string): RpcAnswer {
  return {
    error: {
      code: -32601,
      message: `Portcullis does not relay ${method.slice(0, 60)} to the agent here`,
    },
  };
}
