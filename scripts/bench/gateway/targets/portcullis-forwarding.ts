/**
 * Portcullis with all governance on, the lean upstream MCP server connected
 * as a remote MCP connection (see ../servers/portcullis-forwarding.ts for the
 * calls), the load on /mcp/c/<connection> over Streamable HTTP with the
 * agent's key; on a build that serves remote tools only on the aggregated
 * /mcp, there, under the name it lists for the connection's tool.
 *
 * Skipped, with the reason, on a build without remote MCP connections
 * (runtime/core/operator/remote-connections.ts, `portcullis connect-url`):
 * its child is bundled only once that module is there.
 */
import { access } from 'node:fs/promises';
import { relative } from 'node:path';
import { bundledServer, bundleServers, REMOTE_CONNECTIONS } from '../bundle-servers.ts';
import { listToolNames } from '../load/mcp-caller.ts';
import { ROOT } from '../paths.ts';
import { startServerChild } from '../server-child.ts';
import type { GatewayTarget } from './target.ts';

async function remoteRuntimeOrThrow(): Promise<void> {
  try {
    await access(REMOTE_CONNECTIONS);
  } catch {
    throw new Error(
      `remote MCP connections not on this build (no ${relative(ROOT, REMOTE_CONNECTIONS)}: portcullis connect-url)`,
    );
  }
  try {
    await bundleServers(['portcullis-forwarding']);
  } catch (error) {
    throw new Error(
      `remote MCP connections not usable on this build: bundling the child failed (${(error as Error).message.split('\n')[0]})`,
    );
  }
}

export const portcullisForwarding: GatewayTarget = {
  name: 'portcullis-forwarding',
  upstream: 'mcp',
  async start(upstreamUrl) {
    await remoteRuntimeOrThrow();
    const child = await startServerChild({
      name: this.name,
      command: process.execPath,
      args: [bundledServer('portcullis-forwarding'), upstreamUrl],
      env: { PORTCULLIS_ROOT: ROOT },
      ready: { kind: 'announce' },
    });
    const announced = child.announced as {
      url: string;
      aggregatedUrl: string;
      agentKey: string;
      toolName: string;
    };
    const headers = { authorization: `Bearer ${announced.agentKey}` };
    try {
      const { url, toolName } = await routeOrThrow(announced, headers);
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

/**
 * Where the connection's tool is served: /mcp/c/<connection> under its
 * upstream name, or else the aggregated /mcp under the name listed there.
 */
async function routeOrThrow(
  announced: { url: string; aggregatedUrl: string; toolName: string },
  headers: Record<string, string>,
): Promise<{ url: string; toolName: string }> {
  let perConnection: string;
  try {
    const listed = await listToolNames({ url: announced.url, headers });
    if (listed.includes(announced.toolName))
      return { url: announced.url, toolName: announced.toolName };
    perConnection = `lists ${listed.join(', ') || 'no tools'}`;
  } catch (error) {
    perConnection = (error as Error).message.slice(0, 160);
  }
  const listed = await listToolNames({ url: announced.aggregatedUrl, headers });
  const namespaced = listed.filter((name) => name.endsWith(announced.toolName));
  if (namespaced.length === 1) return { url: announced.aggregatedUrl, toolName: namespaced[0]! };
  throw new Error(
    `the connection's tool is not served: ${new URL(announced.url).pathname} ${perConnection}; /mcp lists ${listed.length} tools, ${namespaced.length} ending in ${announced.toolName}`,
  );
}
