/**
 * The upstream MCP server of the forwarding configurations: Streamable HTTP by
 * hand on node:http, one read-only tool that answers a fixed ~200-byte JSON
 * text, no I/O behind it. Both eras, JSON responses only (no SSE, no GET
 * stream):
 * - 2025 (`initialize`, up to 2025-11-25): a session id per client, kept in a
 *   Set until DELETE;
 * - 2026-07-28: stateless, recognised by its MCP-Protocol-Version header;
 *   `server/discover` answers the versions it speaks.
 * As cheap as it can be, so the numbers measure what sits in front of it.
 * With MCP_UPSTREAM_LEGACY_ONLY=1 it speaks 2025 only (a 2026-07-28 request
 * is answered 400), so a client keeps a session with it; `GET /stats` says
 * how many sessions are open.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenAndAnnounce } from './announce.ts';
import { sendJson } from './json-rpc-reply.ts';
import { UPSTREAM_TOOL } from './mcp-upstream-tool.ts';

const QUOTAS = JSON.stringify({
  user: 'usr_7Hq2kLm9',
  plan: 'team',
  quotas: {
    requests: { limit: 100_000, used: 31_415, resetsAt: '2025-07-01T00:00:00Z' },
    storageBytes: { limit: 10_737_418_240, used: 2_147_483_648 },
    seats: { limit: 25, used: 17 },
  },
});
const MODERN = '2026-07-28';
const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];
const SERVER_INFO = { name: 'bench-mcp-upstream', version: '1.0.0' };

interface JsonRpcRequest {
  id?: string | number;
  method?: string;
  params?: { name?: unknown; protocolVersion?: unknown };
}

const sessions = new Set<string>();
const LEGACY_ONLY = process.env.MCP_UPSTREAM_LEGACY_ONLY === '1';

const failure = (id: JsonRpcRequest['id'] | null, code: number, message: string) => ({
  jsonrpc: '2.0',
  id: id ?? null,
  error: { code, message },
});

/** The answer to one request of either era; `modern` adds the 2026-07-28 result fields. */
function answer(message: JsonRpcRequest, modern: boolean): unknown {
  const ok = (result: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id: message.id,
    result: modern ? { resultType: 'complete', ...result } : result,
  });
  switch (message.method) {
    case 'tools/call':
      return message.params?.name === UPSTREAM_TOOL.name
        ? ok({ content: [{ type: 'text', text: QUOTAS }], isError: false })
        : failure(message.id, -32602, `unknown tool: ${String(message.params?.name)}`);
    case 'tools/list':
      return ok({ tools: [UPSTREAM_TOOL] });
    case 'ping':
      return ok({});
    case 'server/discover':
      if (modern)
        return ok({
          supportedVersions: [MODERN],
          capabilities: { tools: {} },
          serverInfo: SERVER_INFO,
          _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
        });
      break;
  }
  return failure(message.id, -32601, `method not found: ${message.method}`);
}

function initialize(message: JsonRpcRequest, response: ServerResponse): void {
  const sessionId = randomUUID();
  sessions.add(sessionId);
  const asked = message.params?.protocolVersion;
  const protocolVersion =
    typeof asked === 'string' && LEGACY_VERSIONS.includes(asked) ? asked : LEGACY_VERSIONS[0];
  const result = { protocolVersion, capabilities: { tools: {} }, serverInfo: SERVER_INFO };
  sendJson(response, 200, { jsonrpc: '2.0', id: message.id, result }, sessionId);
}

async function handlePost(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  let message: JsonRpcRequest;
  try {
    message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRpcRequest;
  } catch {
    sendJson(response, 400, failure(null, -32700, 'parse error'));
    return;
  }
  const sessionId = request.headers['mcp-session-id'];
  const modern = request.headers['mcp-protocol-version'] === MODERN;
  if (modern && LEGACY_ONLY) {
    sendJson(response, 400, failure(message.id, -32600, `${MODERN} is not spoken here`));
    return;
  }
  if (message.method === 'initialize' && !modern) return initialize(message, response);
  if (!modern) {
    if (typeof sessionId !== 'string') {
      sendJson(response, 400, failure(message.id, -32000, 'Mcp-Session-Id required'));
      return;
    }
    if (!sessions.has(sessionId)) {
      sendJson(response, 404, failure(message.id, -32001, 'session not found'));
      return;
    }
  }
  if (message.id === undefined) sendJson(response, 202);
  else sendJson(response, 200, answer(message, modern));
}

const server = createServer((request, response) => {
  if (request.method === 'POST') {
    handlePost(request, response).catch(() => {
      if (!response.headersSent) sendJson(response, 500, failure(null, -32603, 'internal error'));
      else response.end();
    });
  } else if (request.method === 'GET' && request.url === '/stats') {
    sendJson(response, 200, { sessions: sessions.size });
  } else if (request.method === 'DELETE') {
    const sessionId = request.headers['mcp-session-id'];
    sendJson(response, typeof sessionId === 'string' && sessions.delete(sessionId) ? 204 : 404);
  } else {
    response.writeHead(405, { allow: 'POST, DELETE' }).end();
  }
});
listenAndAnnounce(server, '/mcp', { toolName: UPSTREAM_TOOL.name });
