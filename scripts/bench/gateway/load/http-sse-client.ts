/**
 * Raw JSON-RPC over the HTTP+SSE transport of MCP 2024-11-05, for servers that
 * speak nothing newer (mcp-hub's unified endpoint): a session is a GET stream
 * whose first event, `endpoint`, names the URL to POST messages to; each POST
 * is answered 202 and its response arrives on the stream as a `message`
 * event. Request ids are unique across all sessions of a client, and replies
 * are matched by id.
 */
import { type Dispatcher, Pool } from 'undici';
import type { JsonRpcMessage } from './mcp-client.ts';
import { SseParser } from './sse.ts';

export interface HttpSseSession {
  /** Path and query of the message URL the stream announced. */
  messagesPath: string;
  stream: AbortController;
}

const PROTOCOL_VERSION = '2024-11-05';
const CLIENT_INFO = { name: 'portcullis-bench-gateway', version: '0.1.0' };
const REPLY_TIMEOUT_MS = 10_000;

export class HttpSseClient {
  readonly #pool: Pool;
  readonly #streams: Pool;
  readonly #origin: string;
  readonly #path: string;
  readonly #headers: Record<string, string>;
  readonly #pending = new Map<number, (message: JsonRpcMessage) => void>();
  #nextId = 1;

  /** `connections`: POSTs in flight at once; as many streams again at most. */
  constructor(endpoint: string, headers: Record<string, string>, connections: number) {
    const url = new URL(endpoint);
    this.#origin = url.origin;
    this.#path = `${url.pathname}${url.search}`;
    this.#headers = headers;
    this.#pool = new Pool(url.origin, {
      connections,
      pipelining: 1,
      headersTimeout: REPLY_TIMEOUT_MS,
      bodyTimeout: REPLY_TIMEOUT_MS,
    });
    this.#streams = new Pool(url.origin, { connections, headersTimeout: 0, bodyTimeout: 0 });
  }

  /** Opens the stream, waits for its message URL, then initialize and notifications/initialized. */
  async open(): Promise<HttpSseSession> {
    const stream = new AbortController();
    const answer = await this.#streams.request({
      method: 'GET',
      path: this.#path,
      headers: { ...this.#headers, accept: 'text/event-stream' },
      signal: stream.signal,
    });
    const type = String(answer.headers['content-type'] ?? '');
    if (answer.statusCode !== 200 || !type.includes('text/event-stream')) {
      await answer.body.dump();
      throw new Error(`GET ${this.#path} answered HTTP ${answer.statusCode} (${type})`);
    }
    let announce: (path: string) => void = () => {};
    const announced = new Promise<string>((resolve) => {
      announce = resolve;
    });
    this.#readStream(answer.body, announce).catch(() => {
      // Aborted at close, or the server went away: pending calls time out.
    });
    try {
      const endpoint = await withTimeout(announced, REPLY_TIMEOUT_MS, 'no endpoint event');
      const url = new URL(endpoint, `${this.#origin}${this.#path}`);
      if (url.origin !== this.#origin) throw new Error(`endpoint on another origin: ${url.origin}`);
      const session: HttpSseSession = { messagesPath: `${url.pathname}${url.search}`, stream };
      const hello = await this.request(session, 'initialize', {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: CLIENT_INFO,
      });
      if (!hello.result)
        throw new Error(`initialize failed: ${JSON.stringify(hello).slice(0, 200)}`);
      await this.#post(session, { jsonrpc: '2.0', method: 'notifications/initialized' });
      return session;
    } catch (error) {
      stream.abort();
      throw error;
    }
  }

  /** One request; its JSON-RPC response from the stream. */
  async request(session: HttpSseSession, method: string, params: unknown): Promise<JsonRpcMessage> {
    const id = this.#nextId++;
    const reply = new Promise<JsonRpcMessage>((resolve) => this.#pending.set(id, resolve));
    try {
      await this.#post(session, { jsonrpc: '2.0', id, method, params });
      return await withTimeout(reply, REPLY_TIMEOUT_MS, `no reply to ${method} on the stream`);
    } finally {
      this.#pending.delete(id);
    }
  }

  /** Ends the session: the transport has no other way than closing the stream. */
  async close(session: HttpSseSession): Promise<void> {
    session.stream.abort();
  }

  async destroy(): Promise<void> {
    await Promise.all([this.#pool.destroy(), this.#streams.destroy()]);
  }

  async #post(session: HttpSseSession, message: unknown): Promise<void> {
    const answer = await this.#pool.request({
      method: 'POST',
      path: session.messagesPath,
      headers: { ...this.#headers, 'content-type': 'application/json' },
      body: JSON.stringify(message),
    });
    const text = await answer.body.text();
    if (answer.statusCode >= 300)
      throw new Error(`POST answered HTTP ${answer.statusCode}: ${text.slice(0, 200)}`);
  }

  async #readStream(
    body: Dispatcher.ResponseData['body'],
    announce: (path: string) => void,
  ): Promise<void> {
    const parser = new SseParser();
    body.setEncoding('utf8');
    for await (const chunk of body) {
      for (const { event, data } of parser.pushEvents(chunk as string)) {
        if (event === 'endpoint') {
          announce(data.trim());
          continue;
        }
        if (event !== 'message') continue;
        const message = JSON.parse(data) as JsonRpcMessage;
        if (typeof message.id === 'number') this.#pending.get(message.id)?.(message);
      }
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} in ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
