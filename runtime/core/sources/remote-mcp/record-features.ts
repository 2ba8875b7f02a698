/**
 * What a server serves beyond tools, recorded per revision: what its hello
 * declared and, for a server recorded at 2026-07-28 that still offers the
 * 2025 wire, what that wire's `initialize` declares too (a 2025 caller is
 * served there, where the server may take resource subscriptions it cannot
 * take statelessly).
 */

import type { UpstreamClient } from '../../mcp/client/upstream-client.ts';
import type { UpstreamTarget } from '../../mcp/client/upstream-target.ts';
import type { McpEra } from '../../mcp/wire/protocol-version.ts';
import type { RemoteEndpoint, RemoteFeatures } from '../../model/remote.ts';
import { wireFor } from './open-session.ts';
import { featuresOf } from './remote-features.ts';

const LEGACY: McpEra = 'legacy';

export async function recordFeatures(
  client: UpstreamClient,
  target: UpstreamTarget,
  endpoint: Pick<RemoteEndpoint, 'transport' | 'revision'>,
  capabilities: Record<string, unknown>,
): Promise<RemoteFeatures> {
  const features = featuresOf(capabilities);
  if (wireFor(LEGACY, endpoint) !== 'legacy') return features;
  try {
    const hello = await client.initialize(target);
    client.close(target, hello.session).catch(() => {});
    return { ...features, legacyWire: featuresOf(hello.capabilities) };
  } catch {
    // It offers 2026-07-28 only: every caller is served there.
    return features;
  }
}
