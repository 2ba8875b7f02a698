/**
 * The benchmark's upstream, as a child of its own (its CPU is neither the
 * gateway's nor the load generator's): a real MCP server built with the SDK
 * v2 server package, the 2026-07-28 stateless handler (`createMcpHandler`),
 * on loopback, with one read, `get_weather`, the tool the replica tests call.
 * It announces `{"url": ...}` on its first stdout line and keeps no record
 * of the calls it serves (a test's upstream does, and would grow for the
 * whole run).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

function build(): McpServer {
  const server = new McpServer({ name: 'bench-weather', version: '1.0.0' });
  server.registerTool(
    'get_weather',
    {
      title: 'Weather',
      description: 'Reports the weather of a city.',
      inputSchema: z.object({ city: z.string() }),
      annotations: { readOnlyHint: true },
    },
    async ({ city }) => ({
      content: [{ type: 'text', text: `sunny in ${city}` }],
      structuredContent: { city, sky: 'sunny' },
    }),
  );
  return server;
}

const handler = createMcpHandler(() => build(), { legacy: 'reject' });

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', async () => {
    try {
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method!,
        headers: Object.entries(req.headers).flatMap(([k, v]) =>
          v === undefined ? [] : [[k, Array.isArray(v) ? v.join(', ') : v] as [string, string]],
        ),
        ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
      });
      const response = await handler.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
      if (response.body) for await (const chunk of response.body) res.write(chunk);
      res.end();
    } catch (error) {
      res.writeHead(500).end(String((error as Error).message));
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/mcp` })}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
