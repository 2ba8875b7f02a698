/**
 * The forwarding configurations we write ourselves, in front of the lean
 * upstream MCP server (../servers/mcp-upstream.ts): the load straight to it,
 * and through the bare reverse proxy the REST rows use, the one-hop limit of
 * any forwarding gateway in Node.
 */
import { UPSTREAM_TOOL } from '../servers/mcp-upstream-tool.ts';
import { startBundled } from './bundled.ts';
import type { GatewayTarget, StartedTarget } from './target.ts';

const TOOL = { toolName: UPSTREAM_TOOL.name, arguments: {} };

export const mcpDirect: GatewayTarget = {
  name: 'mcp-direct',
  upstream: 'mcp',
  // The upstream's process is this row's server: its CPU per call is what forwarding starts from.
  start: async (upstreamUrl, upstreamPid): Promise<StartedTarget> => ({
    url: upstreamUrl,
    headers: {},
    ...TOOL,
    mode: 'mcp',
    ...(upstreamPid === undefined ? {} : { pid: upstreamPid }),
    close: async () => {},
  }),
};

export const mcpReverseProxy: GatewayTarget = {
  name: 'mcp-reverse-proxy',
  upstream: 'mcp',
  async start(upstreamUrl) {
    // The proxy forwards every path as it is: its origin in front of the upstream's /mcp.
    const child = await startBundled(this.name, 'reverse-proxy', new URL(upstreamUrl).origin);
    const url = new URL(new URL(upstreamUrl).pathname, child.url).href;
    return { ...child, url, headers: {}, ...TOOL, mode: 'mcp' };
  },
};
