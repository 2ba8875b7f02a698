/** How the hand-written MCP servers of the benchmark answer: a JSON body with its length, or none, and the session's id. */
import type { ServerResponse } from 'node:http';

export function sendJson(
  response: ServerResponse,
  status: number,
  body?: unknown,
  sessionId?: string,
): void {
  const headers: Record<string, string> = {};
  if (sessionId) headers['mcp-session-id'] = sessionId;
  if (body === undefined) {
    response.writeHead(status, headers).end();
    return;
  }
  const text = JSON.stringify(body);
  headers['content-type'] = 'application/json';
  headers['content-length'] = String(Buffer.byteLength(text));
  response.writeHead(status, headers).end(text);
}
