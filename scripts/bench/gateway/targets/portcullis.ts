/**
 * Portcullis itself, with all governance on (authentication, grant, policy,
 * argument validation, vault, audit), in a child process of its own like every
 * other configuration (see ../servers/portcullis.ts).
 */
import { bundledServer } from '../bundle-servers.ts';
import { ROOT } from '../paths.ts';
import { startServerChild } from '../server-child.ts';
import type { GatewayTarget } from './target.ts';

export const portcullis: GatewayTarget = portcullisSpeaking('portcullis', 'legacy');

/** The same server, the load speaking 2026-07-28: no session, `_meta` and headers on every request. */
export const portcullisModern: GatewayTarget = portcullisSpeaking('portcullis-2026', 'modern');

function portcullisSpeaking(name: string, wire: 'legacy' | 'modern'): GatewayTarget {
  return {
    name,
    async start(upstreamUrl) {
      const child = await startServerChild({
        name: this.name,
        command: process.execPath,
        args: [bundledServer('portcullis'), upstreamUrl],
        env: { PORTCULLIS_ROOT: ROOT },
        ready: { kind: 'announce' },
      });
      const { agentKey, toolName } = child.announced as { agentKey: string; toolName: string };
      return {
        url: child.url!,
        pid: child.pid,
        close: child.close,
        headers: { authorization: `Bearer ${agentKey}` },
        toolName,
        arguments: {},
        mode: 'mcp',
        wire,
      };
    },
  };
}
