/**
 * A real MCP server that offers both wires on one address, as the
 * conformance suite's reference server does: the stateful 2025-11-25 wire
 * (the SDK 1.x `StreamableHTTPServerTransport`, one per session), where its
 * tools ask the caller mid-call (`ask_model`: sampling, `ask_name`:
 * elicitation) and it takes subscriptions to `memo://board`; and a minimal
 * stateless 2026-07-28 answer (`server/discover`, lists, `tools/call`,
 * `resources/read`) that cannot ask mid-call (its asking tools answer what
 * the reference server answers there: Method not found) and declares no
 * `resources.subscribe`. A request is on the 2026-07-28 wire when it says so
 * (`MCP-Protocol-Version: 2026-07-28`) or is `server/discover`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { NAME_QUESTION } from '../mcp/fixture-backend.ts';

export const BOARD_URI = 'memo://board';
const MODERN = '2026-07-28';

export interface DualEraUpstream {
  url: string;
  /** The URIs subscribed to on the 2025-11-25 wire, in order. */
  subscribed: string[];
  /** Every 2025-11-25 session says the resource was updated. */
  updateResource(uri: string): void;
  close(): Promise<void>;
}

const READ = { inputSchema: {}, annotations: { readOnlyHint: true } };
const TOOLS = [
  { name: 'ask_model', description: 'Asks the model for the capital of France.' },
  { name: 'ask_name', description: 'Asks the person for their name.' },
];
const BOARD = { uri: BOARD_URI, name: 'board', description: 'A notice board.' };

export async function startDualEraUpstream(): Promise<DualEraUpstream> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const live = new Set<McpServer>();
  const subscribed: string[] = [];

  const build = (): McpServer => {
    const server = new McpServer(
      { name: 'dual-era', version: '1.0.0' },
      { capabilities: { resources: { subscribe: true } } },
    );
    server.registerTool(
      'ask_model',
      { description: TOOLS[0]!.description, ...READ },
      async (_a, extra) => {
        // On the call's own stream, as a 2025-11-25 server asks.
        const answer = await extra.sendRequest(
          {
            method: 'sampling/createMessage',
            params: {
              messages: [
                { role: 'user', content: { type: 'text', text: 'What is the capital of France?' } },
              ],
              maxTokens: 20,
            },
          },
          CreateMessageResultSchema,
        );
        const content = answer.content as { text?: string };
        return { content: [{ type: 'text', text: `the model said: ${content.text}` }] };
      },
    );
    server.registerTool(
      'ask_name',
      { description: TOOLS[1]!.description, ...READ },
      async (_a, extra) => {
        const answer = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: NAME_QUESTION,
          },
          ElicitResultSchema,
        );
        const name = answer.action === 'accept' ? answer.content?.name : undefined;
        return { content: [{ type: 'text', text: `Hello, ${String(name)}!` }] };
      },
    );
    server.registerResource(
      BOARD.name,
      BOARD.uri,
      { description: BOARD.description, mimeType: 'text/plain' },
      async (uri) => ({ contents: [{ uri: uri.href, text: 'nothing posted' }] }),
    );
    server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      subscribed.push(request.params.uri);
      return {};
    });
    server.server.setRequestHandler(UnsubscribeRequestSchema, async () => ({}));
    live.add(server);
    return server;
  };

  const legacy = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    let transport = sessionId ? transports.get(sessionId) : undefined;
    if (!transport && sessionId) {
      res.writeHead(404).end();
      return;
    }
    if (!transport) {
      const server = build();
      const opened = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, opened),
      });
      opened.onclose = () => {
        if (opened.sessionId) transports.delete(opened.sessionId);
        live.delete(server);
      };
      await server.connect(opened);
      transport = opened;
    }
    await transport.handleRequest(req, res, body);
  };

  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let message: { method?: string; id?: unknown; params?: Record<string, unknown> } | undefined;
      try {
        message = text ? JSON.parse(text) : undefined;
      } catch {}
      const modern =
        req.headers['mcp-protocol-version'] === MODERN || message?.method === 'server/discover';
      if (modern && req.method === 'POST' && message) {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(modernAnswer(message)));
        return;
      }
      legacy(req, res, message).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
        else res.end();
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    subscribed,
    updateResource(uri) {
      for (const server of live) server.server.sendResourceUpdated({ uri }).catch(() => {});
    },
    async close() {
      for (const transport of transports.values()) await transport.close().catch(() => {});
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** The stateless 2026-07-28 answer: no session, so no way to ask the caller mid-call. */
function modernAnswer(message: {
  method?: string;
  id?: unknown;
  params?: Record<string, unknown>;
}) {
  const result = (value: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id: message.id,
    result: { resultType: 'complete', ...value },
  });
  switch (message.method) {
    case 'server/discover':
      return result({
        supportedVersions: [MODERN, '2025-11-25'],
        // Resources, but no subscriptions: there is no session to send an update in.
        capabilities: { tools: {}, resources: {} },
        serverInfo: { name: 'dual-era', version: '1.0.0' },
      });
    case 'tools/list':
      return result({
        tools: TOOLS.map((tool) => ({
          ...tool,
          inputSchema: { type: 'object' },
          annotations: { readOnlyHint: true },
        })),
      });
    case 'tools/call':
      // What the reference server's tool says when its question cannot be asked.
      return result({
        content: [
          {
            type: 'text',
            text: 'Sampling not supported or error: MCP error -32601: Method not found',
          },
        ],
        isError: true,
      });
    case 'resources/list':
      return result({ resources: [{ ...BOARD, mimeType: 'text/plain' }] });
    case 'resources/templates/list':
      return result({ resourceTemplates: [] });
    case 'resources/read':
      return result({ contents: [{ uri: BOARD_URI, text: 'nothing posted' }] });
    default:
      return {
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32601, message: 'Method not found' },
      };
  }
}
