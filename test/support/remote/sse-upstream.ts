/**
 * A real MCP server on the 2024-11-05 HTTP+SSE transport (the SDK 1.x
 * `SSEServerTransport`, as servers that only offer the old transport run it):
 * GET /sse opens the stream, POST /messages?sessionId=… carries requests.
 * With `askingTools` it also asks its client mid-call, as such servers do:
 * server requests on the stream (elicitation, sampling, roots).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import {
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export interface SseUpstream {
  url: string;
  streams: number;
  /** With `subscribable`: the URIs subscribed to, and unsubscribed from, in order. */
  subscribed: string[];
  unsubscribed: string[];
  /** With `subscribable`: every session's server says the resource was updated. */
  updateResource(uri: string): void;
  close(): Promise<void>;
}

export interface SseUpstreamOptions {
  /**
   * Adds `ask_name` (elicitation), `ask_model` (sampling) and `count_roots`
   * (roots), reads that ask the client with server requests before answering.
   */
  askingTools?: boolean;
  /** Adds a resource (`memo://welcome`) the server takes subscriptions to (`resources.subscribe`). */
  subscribable?: boolean;
}

export async function startSseUpstream(options: SseUpstreamOptions = {}): Promise<SseUpstream> {
  const transports = new Map<string, SSEServerTransport>();
  const state = { streams: 0 };
  const subscribed: string[] = [];
  const unsubscribed: string[] = [];
  const live = new Set<McpServer>();
  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      transports.set(transport.sessionId, transport);
      state.streams++;
      res.on('close', () => transports.delete(transport.sessionId));
      const server = new McpServer(
        { name: 'fixture-sse', version: '0.9.0' },
        options.subscribable ? { capabilities: { resources: { subscribe: true } } } : {},
      );
      server.registerTool(
        'get_weather',
        {
          description: 'Reports the weather of a city.',
          inputSchema: { city: z.string() },
          annotations: { readOnlyHint: true },
        },
        async ({ city }) => ({
          content: [{ type: 'text', text: `sunny in ${city}` }],
          structuredContent: { city, sky: 'sunny' },
        }),
      );
      if (options.askingTools) registerAskingTools(server);
      if (options.subscribable) {
        server.registerResource(
          'welcome',
          'memo://welcome',
          { description: 'A welcome note.', mimeType: 'text/plain' },
          async (uri) => ({ contents: [{ uri: uri.href, text: 'welcome from the sse server' }] }),
        );
        server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
          subscribed.push(request.params.uri);
          return {};
        });
        server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
          unsubscribed.push(request.params.uri);
          return {};
        });
        live.add(server);
        res.on('close', () => live.delete(server));
      }
      void server.connect(transport);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      const transport = transports.get(url.searchParams.get('sessionId') ?? '');
      if (!transport) {
        res.writeHead(404).end('no such session');
        return;
      }
      void transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sse`,
    get streams() {
      return state.streams;
    },
    subscribed,
    unsubscribed,
    updateResource(uri) {
      for (const server of live) server.server.sendResourceUpdated({ uri }).catch(() => {});
    },
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** The SDK 1.x way of asking mid-call: a request to the client, awaited inside the tool. */
function registerAskingTools(server: McpServer): void {
  const read = { inputSchema: {}, annotations: { readOnlyHint: true } };
  server.registerTool(
    'ask_name',
    { description: 'Asks the person for their name.', ...read },
    async () => {
      const answer = await server.server.elicitInput({
        message: 'What is your name?',
        requestedSchema: {
          type: 'object',
          properties: { name: { type: 'string' } },
          required: ['name'],
        },
      });
      const name = answer.action === 'accept' ? answer.content?.name : undefined;
      return {
        content: [
          { type: 'text', text: name ? `Hello, ${String(name)}!` : `no name (${answer.action})` },
        ],
      };
    },
  );
  server.registerTool(
    'ask_model',
    { description: 'Asks the model for the capital of France.', ...read },
    async () => {
      const answer = await server.server.createMessage({
        messages: [
          { role: 'user', content: { type: 'text', text: 'What is the capital of France?' } },
        ],
        maxTokens: 20,
      });
      const content = answer.content as { text?: string };
      return { content: [{ type: 'text', text: `the model said: ${content.text}` }] };
    },
  );
  server.registerTool(
    'count_roots',
    { description: "Counts the client's roots.", ...read },
    async () => {
      const { roots } = await server.server.listRoots();
      const uris = roots.map((root) => root.uri).join(' ');
      return { content: [{ type: 'text', text: `${roots.length} root(s): ${uris}` }] };
    },
  );
}
