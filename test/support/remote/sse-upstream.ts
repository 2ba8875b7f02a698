/**
 * A real MCP server on the 2024-11-05 HTTP+SSE transport (the SDK 1.x
 * `SSEServerTransport`, as servers that only offer the old transport run it):
 * GET /sse opens the stream, POST /messages?sessionId=… carries requests.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { z } from 'zod';

export interface SseUpstream {
  url: string;
  streams: number;
  close(): Promise<void>;
}

export async function startSseUpstream(): Promise<SseUpstream> {
  const transports = new Map<string, SSEServerTransport>();
  const state = { streams: 0 };
  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      transports.set(transport.sessionId, transport);
      state.streams++;
      res.on('close', () => transports.delete(transport.sessionId));
      const server = new McpServer({ name: 'fixture-sse', version: '0.9.0' });
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
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
