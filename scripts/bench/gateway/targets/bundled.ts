/** The configurations we write ourselves: a bundled server child each (see ../bundle-servers.ts). */
import { bundledServer, type ServerEntry } from '../bundle-servers.ts';
import { startServerChild } from '../server-child.ts';
import type { GatewayTarget, StartedTarget } from './target.ts';

const TOOL = { toolName: 'get_user_quotas', arguments: {} };

export async function startBundled(
  name: string,
  entry: ServerEntry,
  upstreamUrl: string,
): Promise<{ url: string; pid: number; close(): Promise<void> }> {
  const child = await startServerChild({
    name,
    command: process.execPath,
    args: [bundledServer(entry), upstreamUrl],
    ready: { kind: 'announce' },
  });
  return { url: child.url!, pid: child.pid, close: child.close };
}

/** The REST upstream itself, called directly: the ceiling of the load generator and the upstream. */
export const upstreamDirect: GatewayTarget = {
  name: 'upstream-direct',
  start: async (upstreamUrl): Promise<StartedTarget> => ({
    url: new URL('/v1/users/quotas', upstreamUrl).href,
    headers: {},
    ...TOOL,
    mode: 'http',
    close: async () => {},
  }),
};

export const nodeReverseProxy: GatewayTarget = {
  name: 'node-reverse-proxy',
  async start(upstreamUrl) {
    const child = await startBundled(this.name, 'reverse-proxy', upstreamUrl);
    const url = new URL('/v1/users/quotas', child.url).href;
    return { ...child, url, headers: {}, ...TOOL, mode: 'http' };
  },
};

export const leanReference: GatewayTarget = {
  name: 'lean-reference',
  async start(upstreamUrl) {
    const child = await startBundled(this.name, 'lean-reference', upstreamUrl);
    return { ...child, headers: {}, ...TOOL, mode: 'mcp' };
  },
};

export const sdkMinimal: GatewayTarget = {
  name: 'sdk-minimal',
  async start(upstreamUrl) {
    const child = await startBundled(this.name, 'sdk-minimal', upstreamUrl);
    return { ...child, headers: {}, ...TOOL, mode: 'mcp' };
  },
};
