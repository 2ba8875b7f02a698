/**
 * Portcullis itself, with all governance on (authentication, grant, policy,
 * argument validation, vault, audit), in a child process of its own like every
 * other configuration (see ../servers/portcullis.ts).
 */
import { baseServer, bundledServer } from '../bundle-servers.ts';
import { startPortcullisChild } from '../server-child.ts';
import type { GatewayTarget } from './target.ts';

export const portcullis: GatewayTarget = portcullisSpeaking('portcullis', 'legacy');

/** The same server, the load speaking 2026-07-28: no session, `_meta` and headers on every request. */
export const portcullisModern: GatewayTarget = portcullisSpeaking('portcullis-2026', 'modern');

/**
 * The same server and call on the legacy wire, the agent holding an OAuth
 * access token (signed in through the consent page) instead of an agent key.
 * The token lives 15 minutes: a run whose cells outlast that sees 401s.
 */
export const portcullisOAuth: GatewayTarget = portcullisSpeaking(
  'portcullis-oauth',
  'legacy',
  'accessToken',
);

/** The same server from another build (`BENCH_GATEWAY_BASE_BIN`), for an A/B in one run. */
export const portcullisBase: GatewayTarget = portcullisSpeaking(
  'portcullis-base',
  'legacy',
  'agentKey',
  () => baseServer('portcullis'),
);

/** The other build's server on the 2026-07-28 wire. */
export const portcullisModernBase: GatewayTarget = portcullisSpeaking(
  'portcullis-2026-base',
  'modern',
  'agentKey',
  () => baseServer('portcullis'),
);

function portcullisSpeaking(
  name: string,
  wire: 'legacy' | 'modern',
  credential: 'agentKey' | 'accessToken' = 'agentKey',
  bundle: () => string = () => bundledServer('portcullis'),
): GatewayTarget {
  return {
    name,
    async start(upstreamUrl) {
      const child = await startPortcullisChild(this.name, bundle(), [upstreamUrl]);
      const announced = child.announced as {
        agentKey: string;
        accessToken: string;
        toolName: string;
      };
      const { toolName } = announced;
      return {
        url: child.url!,
        pid: child.pid,
        close: child.close,
        headers: { authorization: `Bearer ${announced[credential]}` },
        toolName,
        arguments: {},
        mode: 'mcp',
        wire,
      };
    },
  };
}
