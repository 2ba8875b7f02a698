/**
 * mcp-hub 4.2.1, the npm peer that aggregates MCP servers behind one endpoint,
 * installed into .cache/bench at run time and run from its CLI with the lean
 * upstream MCP server as its one remote server (it connects over Streamable
 * HTTP and names the tool `<server>__<tool>`).
 *
 * - Its unified endpoint (`GET /mcp`) speaks only the HTTP+SSE transport of
 *   2024-11-05: the load generator runs in that mode for it.
 * - At start it reads its marketplace registry from
 *   `$XDG_DATA_HOME/mcp-hub/cache/registry.json` and fetches
 *   ravitemer.github.io when that file is missing, empty or older than an
 *   hour. Every start gets a fresh HOME and XDG folders under
 *   .cache/bench-gateway/mcp-hub with a one-entry registry stamped now, so it
 *   fetches nothing: nothing leaves the machine.
 * - Every client disconnect sends its close handler into a recursion until the
 *   stack overflows (thousands of "client disconnected" log lines, caught);
 *   it keeps serving. Sessions close after a cell's counted window.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureScratchPackage, type ScratchPackage } from '../../scratch-packages.ts';
import { listToolNames } from '../load/mcp-caller.ts';
import { SCRATCH, WORK } from '../paths.ts';
import { freePort, startServerChild } from '../server-child.ts';
import { UPSTREAM_TOOL } from '../servers/mcp-upstream-tool.ts';
import type { GatewayTarget } from './target.ts';

export const MCP_HUB_PACKAGE: ScratchPackage = { name: 'mcp-hub', version: '4.2.1' };
const SERVER_NAME = 'lean';
/** mcp-hub's delimiter between a server's name and its tool's. */
const TOOL_NAME = `${SERVER_NAME}__${UPSTREAM_TOOL.name}`;
const HOME = join(WORK, 'mcp-hub');

/** Its registry cache, as MarketplaceCache.saveCache writes it: fresh for an hour from `lastFetchedAt`. */
function seededRegistry(): unknown {
  const server = { id: 'bench', name: 'bench', description: 'seeded by bench:gateway', tags: [] };
  return {
    registry: { version: 'bench', generatedAt: Date.now(), totalServers: 1, servers: [server] },
    lastFetchedAt: Date.now(),
    serverDocumentation: {},
  };
}

/** A fresh HOME with the seeded registry and the hub's configuration; its environment. */
async function prepareHome(
  upstreamUrl: string,
): Promise<{ config: string; env: Record<string, string> }> {
  await rm(HOME, { recursive: true, force: true });
  const env = {
    HOME,
    XDG_DATA_HOME: join(HOME, 'data'),
    XDG_STATE_HOME: join(HOME, 'state'),
    XDG_CONFIG_HOME: join(HOME, 'config'),
  };
  const cache = join(env.XDG_DATA_HOME, 'mcp-hub', 'cache');
  await mkdir(cache, { recursive: true });
  await writeFile(join(cache, 'registry.json'), JSON.stringify(seededRegistry()));
  const config = join(HOME, 'mcp-servers.json');
  await writeFile(config, JSON.stringify({ mcpServers: { [SERVER_NAME]: { url: upstreamUrl } } }));
  return { config, env };
}

export const mcpHub: GatewayTarget = {
  name: 'mcp-hub',
  upstream: 'mcp',
  async start(upstreamUrl) {
    const folder = await ensureScratchPackage(SCRATCH, MCP_HUB_PACKAGE);
    const { config, env } = await prepareHome(upstreamUrl);
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const child = await startServerChild({
      name: this.name,
      command: process.execPath,
      args: [join(folder, 'dist', 'cli.js'), '--port', String(port), '--config', config],
      env,
      ready: { kind: 'poll', url: `${origin}/api/health` },
    });
    const target = { url: `${origin}/mcp`, headers: {}, transport: 'http+sse' as const };
    try {
      await untilListed(target, TOOL_NAME);
      return {
        ...target,
        toolName: TOOL_NAME,
        arguments: {},
        mode: 'mcp',
        pid: child.pid,
        notes: [
          `${MCP_HUB_PACKAGE.name}@${MCP_HUB_PACKAGE.version}: its unified endpoint over HTTP+SSE (the only transport it serves), the lean upstream as its one server (reached over Streamable HTTP), tool "${TOOL_NAME}"; registry cache seeded, nothing fetched; each session's close recurses until the stack overflows (caught, after the counted window); it logs to stdout and a file, as it ships`,
        ],
        close: child.close,
      };
    } catch (error) {
      await child.close();
      throw error;
    }
  },
};

/** The hub answers health before its servers connect: waits until the tool is listed. */
async function untilListed(
  target: Parameters<typeof listToolNames>[0],
  toolName: string,
): Promise<void> {
  let listed: string[] = [];
  for (let attempt = 0; attempt < 50; attempt++) {
    listed = await listToolNames(target);
    if (listed.includes(toolName)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`expected the tool ${toolName}, listed ${listed.join(', ') || 'none'}`);
}
