/**
 * The practical ceiling of an MCP gateway in Node: Streamable HTTP by hand on
 * node:http (sessions in a Map, JSON responses, no SSE), one tool forwarded to
 * the upstream through an undici Pool. No validation, policy or audit: whatever
 * a real gateway adds is measured against this.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Pool } from 'undici';
import { listenAndAnnounce, upstreamArgument } from './announce.ts';
import { sendJson } from './json-rpc-reply.ts';

const TOOL = {
  name: 'get_user_quotas',
  description: "Read the user's quotas",
  inputSchema: { type: 'object', properties: {} },
};
const PROTOCOL_VERSIONS = ['2025-06-18', '2025-03-26'];

interface JsonRpcRequest {
  jsonrpc: '2.0';
  id?: string | number;
  method: string;
  params?: { name?: unknown; protocolVersion?: unknown };
}

const upstream = new Pool(upstreamArgument().origin, { connections: 128 });
const sessions = new Map<string, { createdAt: number }>();

function failure(id: JsonRpcRequest['id'] | null, code: number, message: string): unknown {
  return { jsonrpc: '2.0', id: id ?? null, error: { code, message } };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function callTool(message: JsonRpcRequest): Promise<unknown> {
  if (message.params?.name !== TOOL.name)
    return failure(message.id, -32602, `unknown tool: ${String(message.params?.name)}`);
  const answer = await upstream.request({ method: 'GET', path: '/v1/users/quotas' });
  const text = await answer.body.text();
  const isError = answer.statusCode >= 400;
  return { jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }], isError } };
}

async function handlePost(request: IncomingMessage, response: ServerResponse): Promise<void> {
  let message: JsonRpcRequest;
  try {
    message = JSON.parse(await readBody(request)) as JsonRpcRequest;
  } catch {
    sendJson(response, 400, failure(null, -32700, 'parse error'));
    return;
  }
  if (message.method === 'initialize') {
    const sessionId = randomUUID();
    sessions.set(sessionId, { createdAt: Date.now() });
    const asked = message.params?.protocolVersion;
    const protocolVersion =
      typeof asked === 'string' && PROTOCOL_VERSIONS.includes(asked) ? asked : PROTOCOL_VERSIONS[0];
    const result = {
      protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'lean-reference', version: '1.0.0' },
    };
    sendJson(response, 200, { jsonrpc: '2.0', id: message.id, result }, sessionId);
    return;
  }
  const sessionId = request.headers['mcp-session-id'];
  if (typeof sessionId !== 'string') {
    sendJson(response, 400, failure(message.id, -32000, 'Mcp-Session-Id required'));
    return;
  }
  if (!sessions.has(sessionId)) {
    sendJson(response, 404, failure(message.id, -32001, 'session not found'));
    return;
  }
  if (message.id === undefined) {
    sendJson(response, 202);
    return;
  }
  switch (message.method) {
    case 'tools/call':
      sendJson(response, 200, await callTool(message));
      return;
    case 'tools/list':
      sendJson(response, 200, { jsonrpc: '2.0', id: message.id, result: { tools: [TOOL] } });
      return;
    case 'ping':
      sendJson(response, 200, { jsonrpc: '2.0', id: message.id, result: {} });
      return;
    default:
      sendJson(response, 200, failure(message.id, -32601, `method not found: ${message.method}`));
  }
}

const server = createServer((request, response) => {
  if (request.method === 'POST') {
    handlePost(request, response).catch(() => {
      if (!response.headersSent) sendJson(response, 500, failure(null, -32603, 'internal error'));
      else response.end();
    });
  } else if (request.method === 'DELETE') {
    const sessionId = request.headers['mcp-session-id'];
    const deleted = typeof sessionId === 'string' && sessions.delete(sessionId);
    sendJson(response, deleted ? 204 : 404);
  } else {
    response.writeHead(405, { allow: 'POST, DELETE' }).end();
  }
});
listenAndAnnounce(server, '/mcp');
