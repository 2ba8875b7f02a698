/**
 * Portcullis itself: not wired yet. The runner skips a target whose start()
 * throws, so the rest of the benchmark runs meanwhile.
 *
 * To wire it, start() should, given the upstream's base URL:
 * 1. make a fresh data directory (mkdtemp) and seed it: the quotas connection
 *    (the spec in ./quotas-spec.ts, or a pinned catalog) with its upstream host
 *    overridden to `upstreamUrl`, a policy that allows the read, and an agent
 *    key;
 * 2. start the gateway in a child process as it ships (node dist/server.mjs,
 *    built by `npm run build`) with `startServerChild` from ../server-child.ts,
 *    `ready: { kind: 'poll', url: <health URL> }` or an announced URL;
 * 3. return { url: <MCP endpoint>, headers: { authorization: `Bearer ${agentKey}` },
 *    toolName, arguments: {}, mode: 'mcp', pid: child.pid, close } and remove the
 *    data directory in close().
 */
import type { GatewayTarget } from './target.ts';

export const portcullis: GatewayTarget = {
  name: 'portcullis',
  async start() {
    throw new Error('not wired yet');
  },
};
