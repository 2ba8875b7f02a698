/**
 * The suite's fixtures behind Portcullis: the endpoint over the everything
 * backend on loopback, connected to a running gateway as the remote MCP
 * connection `fixture` (its key as a bearer credential), every tool reviewed
 * and enabled, and an agent granted all of it. The conformance run reaches
 * the fixture directly (`backend`) and through the gateway on
 * `/mcp/c/fixture` (`through`).
 */
import { changeActions } from '../../runtime/core/operator/actions.ts';
import { createAgent } from '../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../runtime/core/operator/context.ts';
import { grant } from '../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../runtime/core/operator/remote-connections.ts';
import { EverythingBackend } from '../../test/support/mcp/everything-backend.ts';
import { FIXTURE_AGENTS } from '../../test/support/mcp/fixture-backend.ts';
import { startMcpServer } from '../../test/support/mcp/fixture-server.ts';
import type { ConformanceTarget } from './auth-proxy.ts';

export const FIXTURE_CONNECTION = 'fixture';

export interface FixtureTargets {
  backend: ConformanceTarget;
  through: ConformanceTarget;
  close(): Promise<void>;
}

/** `gatewayUrl` is the gateway's origin; it must allow loopback upstreams (the development policy). */
export async function startFixtureTargets(
  ctx: OperatorContext,
  gatewayUrl: string,
  workspace = 'default',
): Promise<FixtureTargets> {
  const server = await startMcpServer(new EverythingBackend());
  const close = async () => {
    await server.close();
    await server.backend.tasks.close();
  };
  try {
    await connectUrl(ctx, {
      workspace,
      url: server.url,
      name: FIXTURE_CONNECTION,
      token: FIXTURE_AGENTS.alice.key,
    });
    const actions = { workspace, connection: FIXTURE_CONNECTION, all: true };
    await changeActions(ctx, 'review', actions);
    await changeActions(ctx, 'enable', actions);
    const { key } = await createAgent(ctx, { workspace, name: 'conformance-through' });
    await grant(ctx, {
      workspace,
      agent: 'conformance-through',
      connection: FIXTURE_CONNECTION,
      scope: 'all',
    });
    return {
      backend: { url: server.url, authorization: `Bearer ${FIXTURE_AGENTS.alice.key}` },
      through: {
        url: `${gatewayUrl}/mcp/c/${FIXTURE_CONNECTION}`,
        authorization: `Bearer ${key}`,
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
