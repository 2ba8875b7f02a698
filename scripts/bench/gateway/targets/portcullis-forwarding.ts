/**
 * Portcullis with all governance on, the lean upstream MCP server connected
 * as a remote MCP connection (see ../servers/portcullis-forwarding.ts for the
 * calls), the load on /mcp/c/<connection> over Streamable HTTP with the
 * agent's key.
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
    const { agentKey, toolName } = child.announced as { agentKey: string; toolName: string };
    const target = { url: child.url!, headers: { authorization: `Bearer ${agentKey}` } };
    try {
      const listed = await listToolNames(target);
      if (!listed.includes(toolName))
        throw new Error(`${target.url} lists ${listed.join(', ') || 'no tools'}, not ${toolName}`);
      return {
        ...target,
        toolName,
        arguments: {},
        mode: 'mcp',
        pid: child.pid,
        notes: [
          `${this.name}: the lean upstream MCP server as a remote MCP connection (connect-url, tools reviewed, a reads grant), called at ${new URL(target.url).pathname}`,
        ],
        close: child.close,
      };
    } catch (error) {
      await child.close();
      throw error;
    }
  },
};
