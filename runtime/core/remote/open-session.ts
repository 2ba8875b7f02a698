/**
 * A new upstream session on the transport and revision a connection
 * recorded: nothing to open on 2026-07-28, `initialize` on Streamable HTTP,
 * the event stream and `initialize` on HTTP+SSE.
 */
import { GatewayError } from '../errors.ts';
import type { RemoteEndpoint } from './remote-model.ts';
import {
  type ExchangeOptions,
  MODERN_REVISION,
  type UpstreamClient,
  type UpstreamSession,
  type UpstreamTarget,
} from './upstream-client.ts';

export async function openSession(
  client: UpstreamClient,
  target: UpstreamTarget,
  endpoint: Pick<RemoteEndpoint, 'transport' | 'revision'>,
  options: ExchangeOptions = {},
): Promise<UpstreamSession> {
  if (endpoint.revision === MODERN_REVISION) return { era: 'modern', revision: MODERN_REVISION };
  if (endpoint.transport === 'sse') {
    const hello = await client.openSse(target, options);
    if (!hello)
      throw new GatewayError('remote_not_mcp', 'the server no longer offers its HTTP+SSE stream');
    return hello.session;
  }
  return (await client.initialize(target, options)).session;
}
