/**
 * Portcullis with all governance on, the lean upstream MCP server connected
 * as a remote MCP connection (see ../servers/portcullis-forwarding.ts for the
 * calls), the load on /mcp/c/<connection> over Streamable HTTP with the
 * agent's key.
 */
import { baseServer, bundledServer } from '../bundle-servers.ts';
import { listToolNames } from '../load/mcp-caller.ts';
import { startPortcullisChild } from '../server-child.ts';
import type { GatewayTarget } from './target.ts';

export const portcullisForwarding: GatewayTarget = forwardingFrom('portcullis-forwarding', () =>
  bundledServer('portcullis-forwarding'),
);

/** The same from another build (`BENCH_GATEWAY_BASE_BIN`), for an A/B in one run. */
export const portcullisForwardingBase: GatewayTarget = forwardingFrom(
  'portcullis-forwarding-base',
  () => baseServer('portcullis-forwarding'),
);

function forwardingFrom(name: string, bundle: () => string): GatewayTarget {
  return {
    name,
    upstream: 'mcp',
    async start(upstreamUrl) {
      const child = await startPortcullisChild(this.name, bundle(), [upstreamUrl]);
      const announced = child.announced as {
        url: string;
        agentKey: string;
        toolName: string;
      };
      const headers = { authorization: `Bearer ${announced.agentKey}` };
      try {
        const { url, toolName } = await servedOrThrow(announced, headers);
        const target = { url, headers };
        return {
          ...target,
          toolName,
          arguments: {},
          mode: 'mcp',
          pid: child.pid,
          notes: [
            `${this.name}: the lean upstream MCP server as a remote MCP connection (connect-url, tools reviewed, a reads grant), tool "${toolName}" at ${new URL(url).pathname}`,
          ],
          close: child.close,
        };
      } catch (error) {
        await child.close();
        throw error;
      }
    },
  };
}

/** The connection's tool, listed on /mcp/c/<connection> under its upstream name. */
async function servedOrThrow(
  announced: { url: string; toolName: string },
  headers: Record<string, string>,
): Promise<{ url: string; toolName: string }> {
  const listed = await listToolNames({ url: announced.url, headers });
  if (listed.includes(announced.toolName))
    return { url: announced.url, toolName: announced.toolName };
  throw new Error(
    `${new URL(announced.url).pathname} does not serve ${announced.toolName}: it lists ${listed.join(', ') || 'no tools'}`,
  );
}
