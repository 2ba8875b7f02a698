/**
 * A minimal MCP server as the SDK's documentation builds one: McpServer +
 * StreamableHTTPServerTransport, stateful, one server and transport per
 * session, one tool that fetches the upstream. Plain node:http instead of
 * Express, the body parsed up front and handed to the transport.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { listenAndAnnounce, upstreamArgument } from './announce.ts';

const quotasUrl = new URL('/v1/users/quotas', upstreamArgument());
const transports = new Map<string, StreamableHTTPServerTransport>();

function createMcpServer(): McpServer {
  const server = new McpServer({ name: 'sdk-minimal', version: '1.0.0' });
  server.registerTool('get_user_quotas', { description: "Read the user's quotas" }, async () => {
    const answer = await fetch(quotasUrl);
    const text = await answer.text();
    return { content: [{ type: 'text', text }], isError: !answer.ok };
  });
  return server;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function reject(response: ServerResponse, status: number, message: string): void {
  response
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const sessionId = request.headers['mcp-session-id'];
  const body = request.method === 'POST' ? await readJson(request) : undefined;
  if (typeof sessionId === 'string') {
    const transport = transports.get(sessionId);
    if (transport) await transport.handleRequest(request, response, body);
    else reject(response, 404, 'session not found');
    return;
  }
  if (request.method !== 'POST' || !isInitializeRequest(body)) {
    reject(response, 400, 'initialize first');
    return;
  }
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => {
      transports.set(id, transport);
    },
  });
  transport.onclose = () => {
    if (transport.sessionId) transports.delete(transport.sessionId);
  };
  await createMcpServer().connect(transport);
  await transport.handleRequest(request, response, body);
}

const server = createServer((request, response) => {
  handle(request, response).catch(() => {
    if (!response.headersSent) reject(response, 500, 'internal error');
    else response.end();
  });
});
listenAndAnnounce(server, '/mcp');
