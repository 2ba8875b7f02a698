/**
 * Raw JSON-RPC over Streamable HTTP, as lean as a client can be, so the
 * benchmark measures servers and not an SDK client. One POST per message over
 * keep-alive undici pools; the reply read from a JSON body, from an SSE body,
 * or (when the POST is answered 202) from the session's GET stream, which some
 * servers use for responses. Request ids are unique across all sessions of a
 * client: some servers route responses by id alone.
 *
 * Two wires: `legacy` (2025-06-18: initialize, a session per slot) and
 * `modern` (2026-07-28: no session; every request carries its `_meta` and the
 * MCP-Protocol-Version, Mcp-Method and Mcp-Name headers).
 */
import { type Dispatcher, Pool } from 'undici';
import { SseParser, sseEvents } from './sse.ts';

export interface JsonRpcMessage {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export interface McpSession {
  /** Empty for a server that issues no session id. */
  id: string;
  protocolVersion: string;
  /** Set when the server keeps a GET stream open for this session. */
  stream: AbortController | undefined;
}

const PROTOCOL_VERSION = '2025-06-18';
const MODERN_VERSION = '2026-07-28';
const CLIENT_INFO = { name: 'portcullis-bench-gateway', version: '0.1.0' };
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
};

export type Wire = 'legacy' | 'modern';
/** How long a reply may take to arrive on the GET stream after a 202. */
const STREAM_REPLY_TIMEOUT_MS = 10_000;
/** How long opening a session waits for the GET stream's answer before going on. */
const STREAM_GRACE_MS = 100;
const TIMEOUTS = { headersTimeout: 10_000, bodyTimeout: 10_000 };

export class McpClient {
  readonly #pool: Pool;
  readonly #streams: Pool;
  readonly #path: string;
  readonly #headers: Record<string, string>;
  readonly #pending = new Map<number, (message: JsonRpcMessage) => void>();
  readonly #wire: Wire;
  #nextId = 1;

  /** `connections`: POSTs in flight at once (the concurrency); as many GET streams again at most. */
  constructor(
    endpoint: string,
    headers: Record<string, string>,
    connections: number,
    wire: Wire = 'legacy',
  ) {
    this.#wire = wire;
    const url = new URL(endpoint);
    this.#path = `${url.pathname}${url.search}`;
    this.#headers = headers;
    this.#pool = new Pool(url.origin, { connections, pipelining: 1, ...TIMEOUTS });
    // A GET stream may stay silent (no headers, no events) for as long as the session lasts.
    this.#streams = new Pool(url.origin, { connections, headersTimeout: 0, bodyTimeout: 0 });
  }

  async open(): Promise<McpSession> {
    // Nothing to open on the modern wire: every request stands alone.
    if (this.#wire === 'modern')
      return { id: '', protocolVersion: MODERN_VERSION, stream: undefined };
    const { message, sessionId } = await this.#exchange(undefined, 'initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: CLIENT_INFO,
    });
    if (!message?.result) throw new Error(`initialize failed: ${describe(message)}`);
    const version = message.result.protocolVersion;
    const session: McpSession = {
      id: sessionId ?? '',
      protocolVersion: typeof version === 'string' ? version : PROTOCOL_VERSION,
      stream: undefined,
    };
    const initialized = await this.#pool.request({
      method: 'POST',
      path: this.#path,
      headers: this.#headersFor(session),
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    await initialized.body.dump();
    if (initialized.statusCode >= 300)
      throw new Error(`notifications/initialized answered HTTP ${initialized.statusCode}`);
    session.stream = await this.#openStream(session);
    return session;
  }

  /** One request, its JSON-RPC response (a result or an error); throws on anything else. */
  async request(session: McpSession, method: string, params: unknown): Promise<JsonRpcMessage> {
    const { message } = await this.#exchange(session, method, params);
    if (!message) throw new Error(`${method}: no JSON-RPC response`);
    return message;
  }

  /** Ends the session (DELETE) and its GET stream; errors ignored. */
  async close(session: McpSession): Promise<void> {
    session.stream?.abort();
    if (!session.id) return;
    try {
      const answer = await this.#pool.request({
        method: 'DELETE',
        path: this.#path,
        headers: this.#headersFor(session),
      });
      await answer.body.dump();
    } catch {
      // The server may not support DELETE, or be gone.
    }
  }

  async destroy(): Promise<void> {
    await Promise.all([this.#pool.destroy(), this.#streams.destroy()]);
  }

  #headersFor(
    session: McpSession | undefined,
    kind: 'message' | 'stream' = 'message',
  ): Record<string, string> {
    const headers: Record<string, string> =
      kind === 'stream'
        ? { ...this.#headers, accept: 'text/event-stream' }
        : {
            ...this.#headers,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          };
    if (session?.id) headers['mcp-session-id'] = session.id;
    if (session) headers['mcp-protocol-version'] = session.protocolVersion;
    return headers;
  }

  async #exchange(
    session: McpSession | undefined,
    method: string,
    params: unknown,
  ): Promise<{ message: JsonRpcMessage | undefined; sessionId: string | undefined }> {
    const id = this.#nextId++;
    const viaStream = session?.stream
      ? new Promise<JsonRpcMessage>((resolve) => this.#pending.set(id, resolve))
      : undefined;
    try {
      const modern = this.#wire === 'modern';
      const headers = this.#headersFor(session);
      if (modern) {
        headers['mcp-method'] = method;
        const name = (params as { name?: unknown } | undefined)?.name;
        if (typeof name === 'string') headers['mcp-name'] = name;
      }
      const body = modern
        ? { jsonrpc: '2.0', id, method, params: { ...(params as object), _meta: MODERN_META } }
        : { jsonrpc: '2.0', id, method, params };
      const answer = await this.#pool.request({
        method: 'POST',
        path: this.#path,
        headers,
        body: JSON.stringify(body),
      });
      const header = answer.headers['mcp-session-id'];
      const sessionId = typeof header === 'string' ? header : undefined;
      const message = await readReply(answer, id);
      if (message || answer.statusCode !== 202 || !viaStream) return { message, sessionId };
      return { message: await withTimeout(viaStream, STREAM_REPLY_TIMEOUT_MS), sessionId };
    } finally {
      this.#pending.delete(id);
    }
  }

  /**
   * Asks for the session's GET stream, as the SDK client does. A server may hold
   * the stream's headers back until its first event, so this waits a moment,
   * not for the headers: a stream still pending then counts as open.
   */
  async #openStream(session: McpSession): Promise<AbortController | undefined> {
    const abort = new AbortController();
    const opened = this.#streams
      .request({
        method: 'GET',
        path: this.#path,
        headers: this.#headersFor(session, 'stream'),
        signal: abort.signal,
      })
      .then(async (answer) => {
        const type = String(answer.headers['content-type'] ?? '');
        if (answer.statusCode !== 200 || !type.includes('text/event-stream')) {
          await answer.body.dump();
          return false;
        }
        this.#readStream(answer.body).catch(() => {
          // Aborted at close, or the server went away: pending calls time out.
        });
        return true;
      })
      .catch(() => false);
    const early = await Promise.race([
      opened,
      new Promise<'pending'>((resolve) => setTimeout(resolve, STREAM_GRACE_MS, 'pending')),
    ]);
    return early === false ? undefined : abort;
  }

  async #readStream(body: Dispatcher.ResponseData['body']): Promise<void> {
    const parser = new SseParser();
    body.setEncoding('utf8');
    for await (const chunk of body) {
      for (const data of parser.push(chunk as string)) {
        const message = JSON.parse(data) as JsonRpcMessage;
        if (typeof message.id === 'number') this.#pending.get(message.id)?.(message);
      }
    }
  }
}

/** The response to request `id` in a POST's answer; undefined for a 202 or a body without it. */
async function readReply(
  answer: Dispatcher.ResponseData,
  id: number,
): Promise<JsonRpcMessage | undefined> {
  if (answer.statusCode === 202) {
    await answer.body.dump();
    return undefined;
  }
  const text = await answer.body.text();
  const type = String(answer.headers['content-type'] ?? '');
  if (answer.statusCode >= 300) throw new Error(`HTTP ${answer.statusCode}: ${text.slice(0, 200)}`);
  const candidates = type.includes('text/event-stream') ? sseEvents(text) : [text];
  for (const data of candidates) {
    const message = JSON.parse(data) as JsonRpcMessage;
    if (message.id === id) return message;
  }
  return undefined;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no reply on the GET stream in ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export function describe(message: JsonRpcMessage | undefined): string {
  if (!message) return 'no response';
  if (message.error) return `JSON-RPC error ${message.error.code}: ${message.error.message}`;
  return JSON.stringify(message).slice(0, 200);
}
