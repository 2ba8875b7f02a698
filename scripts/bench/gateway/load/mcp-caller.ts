/**
 * What the load generator asks of an MCP client, whichever transport it
 * speaks: Streamable HTTP (./mcp-client.ts) or HTTP+SSE (./http-sse-client.ts).
 */
import type { StartedTarget } from '../targets/target.ts';
import { HttpSseClient } from './http-sse-client.ts';
import { describe, type JsonRpcMessage, McpClient } from './mcp-client.ts';

/** A session of either client; only the client that opened it reads it. */
export type McpCallerSession = object;

export interface McpCaller {
  open(): Promise<McpCallerSession>;
  request(session: McpCallerSession, method: string, params: unknown): Promise<JsonRpcMessage>;
  close(session: McpCallerSession): Promise<void>;
  destroy(): Promise<void>;
}

type Endpoint = Pick<StartedTarget, 'url' | 'headers' | 'transport' | 'wire'>;

export function mcpCaller(target: Endpoint, connections: number): McpCaller {
  return target.transport === 'http+sse'
    ? new HttpSseClient(target.url, target.headers, connections)
    : new McpClient(target.url, target.headers, connections, target.wire);
}

/** The tools a server lists, through a throwaway session: for servers that name tools themselves. */
export async function listToolNames(target: Endpoint): Promise<string[]> {
  const client = mcpCaller(target, 1);
  try {
    const session = await client.open();
    const message = await client.request(session, 'tools/list', {});
    await client.close(session);
    const tools = message.result?.tools;
    if (!Array.isArray(tools)) throw new Error(`tools/list failed: ${describe(message)}`);
    return tools.map((tool: { name?: unknown }) => String(tool.name));
  } finally {
    await client.destroy();
  }
}
