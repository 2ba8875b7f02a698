/**
 * Raw HTTP against the fixture MCP server: undici's `request`, so Host and
 * Origin can be set like any other header.
 */
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/server';
import { request } from 'undici';
import { FIXTURE_AGENTS, type FixtureAgent } from './fixture-backend.ts';
import type { FixtureServer } from './fixture-server.ts';

export const ACCEPT_BOTH = 'application/json, text/event-stream';

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The parsed body, or undefined when it is empty or not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON-RPC replies field by field and assert on them
  json: any;
}

export interface RawOptions {
  method?: string;
  /** Sends this agent's key as a Bearer token; null sends no Authorization. */
  agent?: FixtureAgent | null;
  session?: string;
  /** Sent as is, after the defaults (Content-Type, Accept, Authorization, Mcp-Session-Id). */
  headers?: Record<string, string>;
  /** A string is sent verbatim; anything else as JSON. */
  body?: unknown;
  signal?: AbortSignal;
}

export async function raw(server: FixtureServer, options: RawOptions = {}): Promise<RawReply> {
  const method = options.method ?? 'POST';
  const agent = options.agent === undefined ? 'alice' : options.agent;
  const headers: Record<string, string> = {};
  if (method === 'POST') {
    headers['content-type'] = 'application/json';
    headers.accept = ACCEPT_BOTH;
  }
  if (agent !== null) headers.authorization = `Bearer ${FIXTURE_AGENTS[agent].key}`;
  if (options.session !== undefined) headers['mcp-session-id'] = options.session;
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    headers[name.toLowerCase()] = value;
  }
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  const reply = await request(server.url, {
    method: method as 'POST',
    headers,
    ...(body === undefined ? {} : { body }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await reply.body.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: reply.statusCode, headers: reply.headers, text, json };
}

/** A JSON-RPC message as tests read it: field by field, asserted on. */
// biome-ignore lint/suspicious/noExplicitAny: tests read JSON-RPC messages field by field and assert on them
type Message = any;

/** An event stream as it arrives: each `data:` line's JSON, in order. */
export interface OpenStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The next message; rejects when the stream ends first. */
  next(): Promise<Message>;
  /** Everything that arrives until the server ends the stream. */
  rest(): Promise<Message[]>;
  close(): void;
}

/** Sends a request and reads its reply as an event stream, message by message. */
export async function openStream(
  server: FixtureServer,
  options: RawOptions = {},
): Promise<OpenStream> {
  const controller = new AbortController();
  const method = options.method ?? 'POST';
  const agent = options.agent === undefined ? 'alice' : options.agent;
  const headers: Record<string, string> = { accept: ACCEPT_BOTH };
  if (method === 'POST') headers['content-type'] = 'application/json';
  if (agent !== null) headers.authorization = `Bearer ${FIXTURE_AGENTS[agent].key}`;
  if (options.session !== undefined) headers['mcp-session-id'] = options.session;
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    headers[name.toLowerCase()] = value;
  }
  const reply = await request(server.url, {
    method: method as 'POST',
    headers,
    signal: controller.signal,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const messages = sseMessages(reply.body);
  return {
    status: reply.statusCode,
    headers: reply.headers,
    async next() {
      const { value, done } = await messages.next();
      if (done) throw new Error('the stream ended');
      return value;
    },
    async rest() {
      const all = [];
      for await (const message of { [Symbol.asyncIterator]: () => messages }) all.push(message);
      return all;
    },
    close: () => controller.abort(),
  };
}

async function* sseMessages(body: AsyncIterable<Buffer>): AsyncGenerator<Message> {
  let buffer = '';
  try {
    for await (const chunk of body) {
      buffer += chunk.toString('utf8');
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        if (data !== '') yield JSON.parse(data);
        end = buffer.indexOf('\n\n');
      }
    }
  } catch (error) {
    if ((error as { name?: string }).name !== 'AbortError') throw error;
  }
}

let nextId = 1;

export function rpc(method: string, params?: Record<string, unknown>, id: number = nextId++) {
  return { jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) };
}

export function initializeRequest(protocolVersion: string = LATEST_PROTOCOL_VERSION) {
  return rpc('initialize', {
    protocolVersion,
    capabilities: {},
    clientInfo: { name: 'portcullis-test', version: '1.0.0' },
  });
}

/** Initializes a session for `agent` and returns its id. */
export async function openSession(
  server: FixtureServer,
  agent: FixtureAgent = 'alice',
  protocolVersion?: string,
): Promise<string> {
  const reply = await raw(server, { agent, body: initializeRequest(protocolVersion) });
  const id = reply.headers['mcp-session-id'];
  if (reply.status !== 200 || typeof id !== 'string') {
    throw new Error(`initialize failed: ${reply.status} ${reply.text}`);
  }
  await raw(server, {
    agent,
    session: id,
    body: { jsonrpc: '2.0', method: 'notifications/initialized' },
  });
  return id;
}

/** The JSON-RPC error code of a reply body, if it is an error. */
export function errorCodeOf(reply: RawReply): number | undefined {
  return reply.json?.error?.code;
}

export const MODERN = '2026-07-28';

/** The 2026-07-28 per-request fields, with a client that can give every kind of input. */
export function modernMeta(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, sampling: {}, roots: {} },
    'io.modelcontextprotocol/clientInfo': { name: 'portcullis-test', version: '1.0.0' },
    ...overrides,
  };
}

/** A modern request: `_meta` in the body, and the headers that mirror it. */
export function modern(
  method: string,
  params: Record<string, unknown> = {},
  options: {
    id?: number | string;
    meta?: Record<string, unknown> | null;
    headers?: Record<string, string>;
  } = {},
): { body: unknown; headers: Record<string, string> } {
  const named = params.name ?? params.uri ?? params.taskId;
  const name = typeof named === 'string' ? named : undefined;
  const headers: Record<string, string> = {
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
    ...options.headers,
  };
  const meta = options.meta === null ? undefined : (options.meta ?? modernMeta());
  return {
    body: {
      jsonrpc: '2.0',
      id: options.id ?? nextId++,
      method,
      params: meta === undefined ? params : { ...params, _meta: meta },
    },
    headers,
  };
}

/**
 * One modern `tools/call` of `name` POSTed to `url` with `key` as Bearer, its
 * client declaring form elicitation only: the reply's `result`. `extra` goes
 * into the params (an `inputResponses` and `requestState` retry, say).
 */
export async function modernToolCall(
  url: string,
  key: string,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  return (await modernToolExchange(url, key, name, extra)).result;
}

/**
 * As `modernToolCall`, with `progressToken` in `_meta` when given: the result
 * and the notifications an event-stream reply carried before it, in order.
 */
export async function modernToolExchange(
  url: string,
  key: string,
  name: string,
  extra: Record<string, unknown> = {},
  progressToken?: string,
): Promise<{ result: Record<string, unknown>; notifications: Record<string, unknown>[] }> {
  const { body, headers } = modern(
    'tools/call',
    { name, arguments: {}, ...extra },
    {
      id: 1,
      meta: modernMeta({
        'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
        ...(progressToken === undefined ? {} : { progressToken }),
      }),
    },
  );
  const messages = await postModern(url, key, body, headers);
  const answer = messages.find((message) => message.id === 1);
  return {
    result: answer?.result as Record<string, unknown>,
    notifications: messages.filter((message) => message.id === undefined),
  };
}

/**
 * One modern request of any method POSTed to `url` with `key` as Bearer, its
 * client declaring `capabilities` in `_meta`: the reply's JSON-RPC `result`
 * or `error` (from a JSON body, or the event stream's one reply).
 */
export async function modernAsk(
  url: string,
  key: string,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown>,
  // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON-RPC reply field by field
): Promise<{ result?: Record<string, any>; error?: Record<string, any> }> {
  const { body, headers } = modern(method, params, {
    meta: modernMeta({ 'io.modelcontextprotocol/clientCapabilities': capabilities }),
  });
  const messages = await postModern(url, key, body, headers);
  return messages.find((message) => message.id === (body as { id: unknown }).id) ?? {};
}

/** A modern message POSTed with `key` as Bearer: the messages of its reply (a JSON body, or an event stream's). */
async function postModern(
  url: string,
  key: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Record<string, unknown>[]> {
  const reply = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: ACCEPT_BOTH,
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await reply.text();
  return reply.headers.get('content-type')?.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>)
    : [JSON.parse(text) as Record<string, unknown>];
}

/** The tasks extension, as a client declares it. */
export const TASKS_CAPABILITIES = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

/**
 * One modern request POSTed to `${url}${path}` with `key` as Bearer, its client
 * declaring `capabilities` (the tasks extension unless given: a `tools/call`
 * that may answer a task, a `tasks/get`): the reply's `result` or `error`.
 */
export function modernTaskRequest(
  url: string,
  key: string,
  method: string,
  params: Record<string, unknown>,
  path = '/mcp',
  capabilities: Record<string, unknown> = TASKS_CAPABILITIES,
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON replies field by field
): Promise<{ result?: Record<string, any>; error?: Record<string, any> }> {
  return modernAsk(`${url}${path}`, key, method, params, capabilities);
}
