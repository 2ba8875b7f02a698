/**
 * Real MCP servers to connect as remote upstreams, built with the SDK v2
 * server package and served on loopback: the 2026-07-28 stateless handler
 * (`createMcpHandler`, modern only) and a stateful 2025-11-25 server
 * (`WebStandardStreamableHTTPServerTransport`, one per session). A test may
 * put a saboteur in front that answers chosen requests badly (too large, not
 * JSON, another id, a 404 for the session); every other request reaches the
 * real server.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  acceptedContent,
  createMcpHandler,
  inputRequired,
  inputResponse,
  McpServer,
  type RegisteredPrompt,
  type RegisteredResource,
  ResourceTemplate,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { z } from 'zod';

export type UpstreamKind = 'modern' | 'stateful';

export interface SabotageRequest {
  method: string;
  /** The JSON-RPC id of the request (undefined for a notification or a GET). */
  id: unknown;
  tool: string | undefined;
  sessionId: string | undefined;
  headers: IncomingMessage['headers'];
}

export interface Sabotage {
  /** Never answers (until the server closes). */
  hang?: boolean;
  status: number;
  headers?: Record<string, string>;
  body: string | Buffer;
}

export interface UpstreamOptions {
  /** A header every request must carry with this value (else 401). */
  requireHeader?: { name: string; value: string | string[] };
  /** Decides first on every request (an OAuth resource server's check): an answer, or undefined to go on. */
  guard?: (request: IncomingMessage, body: Buffer) => Promise<Sabotage | undefined>;
  sabotage?: (request: SabotageRequest) => Sabotage | undefined;
  /** Adds `slow`, a read that waits until it is cancelled (or 10 s). */
  slowTool?: boolean;
  /** Adds `gate`, a read that reports progress, then waits for `open()` before it answers. */
  gateTool?: boolean;
  /**
   * Adds `ask_name` (elicitation), `ask_then_count` (a name, then progress), `ask_two` (a name, then a colour),
   * `ask_to_open` (URL-mode elicitation), `ask_model` (sampling) and
   * `count_roots` (roots), reads written the SDK's multi round-trip way: a 2026-07-28
   * server answers `input_required`, a 2025-11-25 one asks with server
   * requests on the call's stream (the SDK's own translation).
   */
  askingTools?: boolean;
  /** Adds a resource (`memo://welcome`), a template (`memo://notes/{id}`) and a prompt (`greet`). */
  resourcesAndPrompts?: boolean;
  /**
   * Those resources, and the server takes subscriptions to them
   * (`resources.subscribe`): `resources/subscribe` on a 2025-11-25 session,
   * `resourceSubscriptions` on a 2026-07-28 `subscriptions/listen`.
   */
  subscribable?: boolean;
  /** Adds `shout`, a read that logs a message, then waits for `open()` before it answers. */
  logTool?: boolean;
  /** Serves https on `localhost` with this key and certificate. */
  tls?: { key: string; cert: string };
  /**
   * Adds tools by these names, as a hostile server names its own after
   * another connection's (`bank__transfer`) or a compiled provider's: each
   * takes an optional `amount` and answers with its name and the server's.
   * Read each time a server is built, so a test may change the list (a
   * `modern` server shows the change on its next request).
   */
  namedTools?: NamedTool[];
}

/** A tool a test names, with its description. */
export interface NamedTool {
  name: string;
  description: string;
}

export interface Upstream {
  url: string;
  /** The session ids the stateful server handed out, in order. */
  sessions: string[];
  /** The session ids a client ended (DELETE), in order. */
  ended: string[];
  /** Each `tools/call` that reached the real server: its tool and session. */
  calls: Array<{ tool: string; sessionId: string | undefined }>;
  /** Headers of every request that arrived (names lower case). */
  seenHeaders: Array<IncomingMessage['headers']>;
  /** Tool calls the server saw cancelled, by tool name. */
  cancelled: string[];
  /** Lets a waiting `gate` call answer. */
  open(): void;
  /** Every live server session says its tool list changed. */
  notifyToolsChanged(): void;
  /**
   * Resolves once a client holds a listening stream (a session's GET,
   * answered with its head sent), at once while one is open: what a server
   * says outside a call reaches only such a stream.
   */
  listening(): Promise<void>;
  /**
   * The URIs subscribed to, and let go of, in order: a 2025-11-25 session's
   * `resources/subscribe` and `unsubscribe`, a 2026-07-28 listen stream's
   * `resourceSubscriptions` as it opens and as it closes.
   */
  subscribed: string[];
  unsubscribed: string[];
  /** The server says a resource was updated (`sendResourceUpdated` in each session; the listen bus on 2026-07-28). */
  updateResource(uri: string): void;
  /** The 2025-11-25 server forgets every session (its next request in one is a 404), as a restarted server does. */
  forgetSessions(): Promise<void>;
  /** Changes a tool's description (the next list shows it). */
  setDescription(description: string): void;
  /**
   * With `resourcesAndPrompts`: changes the `greet` prompt's and the
   * `memo://welcome` resource's descriptions, and adds the prompt `farewell`
   * (`added: true`) or removes it again (`added: false`), in live sessions
   * too (which say their lists changed).
   */
  changeFeatures(change: { prompt?: string; resource?: string; added?: boolean }): void;
  /**
   * Stops serving an item from the next session on (each 2026-07-28 request
   * is one): the tool `delete_item`, and with `resourcesAndPrompts` the
   * prompt `prompt:greet` and the resource `resource:memo://welcome`.
   */
  drop(key: 'delete_item' | 'prompt:greet' | 'resource:memo://welcome'): void;
  close(): Promise<void>;
}

export async function startUpstream(
  kind: UpstreamKind,
  options: UpstreamOptions = {},
): Promise<Upstream> {
  const state: FeatureState & { description: string; dropped: Set<string> } = {
    description: 'Reports the weather of a city.',
    dropped: new Set(),
    prompt: 'Greets someone.',
    resource: 'A welcome note.',
    added: false,
  };
  const featureSets: FeatureHandles[] = [];
  const calls: Upstream['calls'] = [];
  const sessions: string[] = [];
  const ended: string[] = [];
  const seenHeaders: Upstream['seenHeaders'] = [];
  const cancelled: string[] = [];
  let listenStreams = 0;
  let heardListening: Array<() => void> = [];
  let openGate: () => void = () => {};
  let gate = new Promise<void>((resolve) => {
    openGate = resolve;
  });

  const live: McpServer[] = [];
  const subscribed: string[] = [];
  const unsubscribed: string[] = [];
  const build = () => {
    const server = new McpServer(
      { name: `fixture-${kind}`, version: '1.2.3' },
      {
        capabilities: {
          ...(options.logTool ? { logging: {} } : {}),
          ...(options.subscribable ? { resources: { subscribe: true } } : {}),
        },
      },
    );
    if (kind === 'stateful') live.push(server);
    server.registerTool(
      'get_weather',
      {
        title: 'Weather',
        description: state.description,
        inputSchema: z.object({ city: z.string() }),
        annotations: { readOnlyHint: true },
      },
      async ({ city }) => ({
        content: [{ type: 'text', text: `sunny in ${city}` }],
        structuredContent: { city, sky: 'sunny' },
      }),
    );
    const deleteItem = server.registerTool(
      'delete_item',
      { description: 'Deletes an item.', inputSchema: z.object({ id: z.string() }) },
      async ({ id }) => ({ content: [{ type: 'text', text: `deleted ${id}` }] }),
    );
    server.registerTool(
      'count',
      {
        description: 'Counts, reporting progress.',
        inputSchema: z.object({ steps: z.number() }),
        annotations: { readOnlyHint: true },
      },
      async ({ steps }, ctx) => {
        const token = (ctx as { mcpReq: { _meta?: { progressToken?: string | number } } }).mcpReq
          ._meta?.progressToken;
        for (let step = 1; step <= steps; step++) {
          if (token !== undefined)
            await ctx.mcpReq.notify({
              method: 'notifications/progress',
              params: { progressToken: token, progress: step, total: steps },
            });
        }
        return { content: [{ type: 'text', text: `counted to ${steps}` }] };
      },
    );
    /** A read that tells the caller something (`say`), then waits for `open()` before it answers. */
    const gated = (
      name: string,
      description: string,
      say: (ctx: Parameters<Parameters<typeof server.registerTool>[2]>[1]) => Promise<void>,
      answer: string,
    ) =>
      server.registerTool(
        name,
        { description, inputSchema: z.object({}), annotations: { readOnlyHint: true } },
        async (_args, ctx) => {
          await say(ctx);
          await gate;
          return { content: [{ type: 'text', text: answer }] };
        },
      );
    if (options.gateTool)
      gated(
        'gate',
        'Reports progress, then waits until the test opens the gate.',
        async (ctx) => {
          const token = (ctx as { mcpReq: { _meta?: { progressToken?: string | number } } }).mcpReq
            ._meta?.progressToken;
          if (token !== undefined)
            await ctx.mcpReq.notify({
              method: 'notifications/progress',
              params: { progressToken: token, progress: 1, total: 2, message: 'waiting' },
            });
        },
        'through the gate',
      );
    for (const { name, description } of options.namedTools ?? [])
      server.registerTool(
        name,
        { description, inputSchema: z.object({ amount: z.number().optional() }) },
        async ({ amount }) => ({
          content: [
            { type: 'text', text: `${name} answered by fixture-${kind} (${amount ?? '-'})` },
          ],
        }),
      );
    if (options.askingTools) registerAskingTools(server);
    const droppable: Record<string, { remove(): void }> = { delete_item: deleteItem };
    if (options.resourcesAndPrompts || options.subscribable) {
      const handles = registerResourcesAndPrompts(server, kind, state);
      if (kind === 'stateful') featureSets.push(handles);
      droppable['prompt:greet'] = handles.greet;
      droppable['resource:memo://welcome'] = handles.welcome;
    }
    for (const key of state.dropped) droppable[key]?.remove();
    if (options.subscribable) {
      server.server.setRequestHandler('resources/subscribe', async (request) => {
        subscribed.push(request.params.uri);
        return {};
      });
      server.server.setRequestHandler('resources/unsubscribe', async (request) => {
        unsubscribed.push(request.params.uri);
        return {};
      });
    }
    if (options.logTool)
      gated(
        'shout',
        'Logs a message, then waits until the test opens the gate.',
        (ctx) =>
          ctx.mcpReq.notify({
            method: 'notifications/message',
            params: { level: 'warning', logger: 'fixture', data: { said: 'hello' } },
          }),
        'shouted',
      );
    if (options.slowTool)
      server.registerTool(
        'slow',
        {
          description: 'Waits until it is cancelled.',
          inputSchema: z.object({}),
          annotations: { readOnlyHint: true },
        },
        async (_args, ctx) => {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 10_000);
            ctx.mcpReq.signal.addEventListener('abort', () => {
              clearTimeout(timer);
              cancelled.push('slow');
              resolve();
            });
          });
          return { content: [{ type: 'text', text: 'done' }] };
        },
      );
    return server;
  };

  const modern =
    kind === 'modern' ? createMcpHandler(() => build(), { legacy: 'reject' }) : undefined;
  const transports = new Map<string, WebStandardStreamableHTTPServerTransport>();

  const handle = async (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    seenHeaders.push(req.headers);
    const guarded = await options.guard?.(req, body);
    if (guarded) {
      res
        .writeHead(guarded.status, guarded.headers ?? { 'content-type': 'application/json' })
        .end(guarded.body);
      return;
    }
    const required = options.requireHeader;
    const accepted = required && [required.value].flat();
    const sent = required && req.headers[required.name.toLowerCase()];
    if (required && (typeof sent !== 'string' || !accepted?.includes(sent))) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    let message: {
      method?: string;
      id?: unknown;
      params?: { name?: string; notifications?: { resourceSubscriptions?: unknown } };
    } = {};
    try {
      message = JSON.parse(body.toString('utf8') || '{}');
    } catch {}
    const listened =
      message.method === 'subscriptions/listen'
        ? message.params?.notifications?.resourceSubscriptions
        : undefined;
    if (options.subscribable && Array.isArray(listened)) {
      subscribed.push(...(listened as string[]));
      res.on('close', () => unsubscribed.push(...(listened as string[])));
    }
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    const tool = message.method === 'tools/call' ? message.params?.name : undefined;
    const bad = options.sabotage?.({
      method: message.method ?? req.method ?? '',
      id: message.id,
      tool,
      sessionId,
      headers: req.headers,
    });
    if (bad?.hang) return;
    if (bad) {
      res
        .writeHead(bad.status, bad.headers ?? { 'content-type': 'application/json' })
        .end(bad.body);
      return;
    }
    if (tool !== undefined) calls.push({ tool, sessionId });
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method!,
      headers: Object.entries(req.headers).flatMap(([k, v]) =>
        v === undefined ? [] : [[k, Array.isArray(v) ? v.join(', ') : v] as [string, string]],
      ),
      ...(req.method === 'POST' ? { body } : {}),
    });
    let response: Response;
    if (modern) response = await modern.fetch(request);
    else {
      let transport = sessionId ? transports.get(sessionId) : undefined;
      if (!transport && sessionId) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            error: { code: -32001, message: 'Session not found' },
            id: null,
          }),
        );
        return;
      }
      if (!transport) {
        transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            sessions.push(id);
            transports.set(id, transport!);
          },
          onsessionclosed: (id) => {
            ended.push(id);
            transports.delete(id);
          },
        });
        await build().connect(transport);
      }
      response = await transport.handleRequest(request);
    }
    res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
    // A stream's head goes out at once, as a real server sends it.
    res.flushHeaders();
    if (req.method === 'GET' && response.status === 200) {
      listenStreams++;
      res.on('close', () => listenStreams--);
      for (const resolve of heardListening) resolve();
      heardListening = [];
    }
    if (response.body) for await (const chunk of response.body) res.write(chunk);
    res.end();
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks)).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
        else res.end();
      });
    });
  };
  const http = options.tls ? createHttpsServer(options.tls, onRequest) : createServer(onRequest);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: options.tls ? `https://localhost:${port}/mcp` : `http://127.0.0.1:${port}/mcp`,
    sessions,
    ended,
    calls,
    seenHeaders,
    cancelled,
    open: () => {
      openGate();
      gate = new Promise<void>((resolve) => {
        openGate = resolve;
      });
    },
    listening: () =>
      listenStreams > 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => heardListening.push(resolve)),
    notifyToolsChanged: () => {
      for (const server of live) {
        try {
          server.sendToolListChanged();
        } catch {
          // A server whose session ended.
        }
      }
    },
    subscribed,
    unsubscribed,
    updateResource: (uri) => {
      modern?.notify.resourceUpdated(uri);
      for (const server of live) server.server.sendResourceUpdated({ uri }).catch(() => {});
    },
    async forgetSessions() {
      const forgotten = [...transports.values()];
      transports.clear();
      for (const transport of forgotten) await transport.close();
    },
    setDescription: (description) => {
      state.description = description;
    },
    changeFeatures: (change) => {
      Object.assign(state, change);
      for (const handles of featureSets) {
        try {
          if (change.prompt !== undefined) handles.greet.update({ description: change.prompt });
          if (change.resource !== undefined)
            handles.welcome.update({
              metadata: { description: change.resource, mimeType: 'text/plain' },
            });
          if (change.added && !handles.farewell)
            handles.farewell = registerFarewell(handles.server);
          if (change.added === false && handles.farewell) {
            handles.farewell.remove();
            delete handles.farewell;
          }
        } catch {
          // A server whose session ended.
        }
      }
    },
    drop: (key) => {
      state.dropped.add(key);
    },
    async close() {
      await modern?.close();
      for (const transport of transports.values()) await transport.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** A form asking the person for one string, `key`, answered under the same key. */
function askFor(key: string) {
  return inputRequired({
    inputRequests: {
      [key]: inputRequired.elicit({
        message: `What is your ${key}?`,
        requestedSchema: {
          type: 'object',
          properties: { [key]: { type: 'string' } },
          required: [key],
        },
      }),
    },
  });
}

function registerAskingTools(server: McpServer): void {
  const read = { inputSchema: z.object({}), annotations: { readOnlyHint: true } };
  server.registerTool(
    'ask_name',
    { description: 'Asks the person for their name.', ...read },
    async (_args, ctx) => {
      const answer = acceptedContent<{ name?: string }>(ctx.mcpReq.inputResponses, 'name');
      if (answer?.name) return { content: [{ type: 'text', text: `Hello, ${answer.name}!` }] };
      const reply = inputResponse(ctx.mcpReq.inputResponses, 'name');
      if (reply.kind === 'elicit')
        return { content: [{ type: 'text', text: `no name (${reply.action})` }] };
      return askFor('name');
    },
  );
  server.registerTool(
    'ask_then_count',
    { description: 'Asks for a name, then reports progress before it greets.', ...read },
    async (_args, ctx) => {
      const answer = acceptedContent<{ name?: string }>(ctx.mcpReq.inputResponses, 'name');
      if (answer?.name) {
        const token = (ctx as { mcpReq: { _meta?: { progressToken?: string | number } } }).mcpReq
          ._meta?.progressToken;
        for (const step of [1, 2])
          if (token !== undefined)
            await ctx.mcpReq.notify({
              method: 'notifications/progress',
              params: { progressToken: token, progress: step, total: 2, message: `step ${step}` },
            });
        return { content: [{ type: 'text', text: `Counted for ${answer.name}` }] };
      }
      return askFor('name');
    },
  );
  server.registerTool(
    'ask_to_open',
    { description: 'Asks the person to open a page (URL-mode elicitation).', ...read },
    async (_args, ctx) => {
      // A URL-mode answer is an action alone (no content).
      const answered = ctx.mcpReq.inputResponses?.page as { action?: string } | undefined;
      if (answered !== undefined)
        return { content: [{ type: 'text', text: `the page: ${String(answered.action)}` }] };
      return inputRequired({
        inputRequests: {
          page: inputRequired.elicitUrl({
            message: 'Open the page to go on.',
            url: 'https://example.com/go-on',
          }),
        },
      });
    },
  );
  server.registerTool(
    'ask_two',
    { description: 'Asks for a name, then for a colour.', ...read },
    async (_args, ctx) => {
      const colour = acceptedContent<{ colour?: string }>(ctx.mcpReq.inputResponses, 'colour');
      if (colour?.colour) return { content: [{ type: 'text', text: `you like ${colour.colour}` }] };
      const name = acceptedContent<{ name?: string }>(ctx.mcpReq.inputResponses, 'name');
      return askFor(name?.name ? 'colour' : 'name');
    },
  );
  server.registerTool(
    'ask_model',
    { description: 'Asks the model for the capital of France.', ...read },
    async (_args, ctx) => {
      const reply = inputResponse(ctx.mcpReq.inputResponses, 'capital');
      if (reply.kind === 'sampling') {
        const content = reply.result.content as { type?: string; text?: string };
        return { content: [{ type: 'text', text: `the model said: ${content.text}` }] };
      }
      return inputRequired({
        inputRequests: {
          capital: inputRequired.createMessage({
            messages: [
              { role: 'user', content: { type: 'text', text: 'What is the capital of France?' } },
            ],
            maxTokens: 20,
          }),
        },
      });
    },
  );
  server.registerTool(
    'count_roots',
    { description: "Counts the client's roots.", ...read },
    async (_args, ctx) => {
      const reply = inputResponse(ctx.mcpReq.inputResponses, 'roots');
      if (reply.kind === 'roots') {
        const uris = reply.roots.map((root) => root.uri).join(' ');
        return { content: [{ type: 'text', text: `${reply.roots.length} root(s): ${uris}` }] };
      }
      return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
    },
  );
}

interface FeatureState {
  prompt: string;
  resource: string;
  added: boolean;
}

interface FeatureHandles {
  server: McpServer;
  greet: RegisteredPrompt;
  welcome: RegisteredResource;
  farewell?: RegisteredPrompt;
}

function registerResourcesAndPrompts(
  server: McpServer,
  kind: UpstreamKind,
  state: FeatureState,
): FeatureHandles {
  const welcome = server.registerResource(
    'welcome',
    'memo://welcome',
    { description: state.resource, mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, text: `welcome from the ${kind} server` }] }),
  );
  server.registerResource(
    'note',
    new ResourceTemplate('memo://notes/{id}', { list: undefined }),
    { description: 'A note by id.', mimeType: 'text/plain' },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `note ${String(id)}` }] }),
  );
  const greet = server.registerPrompt(
    'greet',
    { description: state.prompt, argsSchema: z.object({ who: z.string() }) },
    ({ who }) => ({
      description: state.prompt,
      messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${who}.` } }],
    }),
  );
  return {
    server,
    greet,
    welcome,
    ...(state.added ? { farewell: registerFarewell(server) } : {}),
  };
}

function registerFarewell(server: McpServer): RegisteredPrompt {
  return server.registerPrompt('farewell', { description: 'Says goodbye.' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'Say goodbye.' } }],
  }));
}
