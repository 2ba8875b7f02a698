/**
 * A remote MCP server's tools held for approval: the server connected by
 * URL, its actions reviewed, the named ones set to `ask`, and the agent
 * granted all of it, as an operator does it.
 */
import { expect } from 'vitest';
import { changeActions } from '../../../runtime/core/operator/actions.ts';
import type { OperatorContext } from '../../../runtime/core/operator/context.ts';
import { grant } from '../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../runtime/core/operator/remote-connections.ts';

export interface HeldRemoteOptions {
  /** The server's MCP URL. */
  url: string;
  /** The connection's name. */
  connection: string;
  /** The actions set to `ask`. */
  actions: string[];
  /** The agent granted all of the connection. */
  agent: string;
  workspace?: string;
}

export async function holdRemoteTools(
  ctx: OperatorContext,
  options: HeldRemoteOptions,
): Promise<void> {
  const { url, connection, actions, agent } = options;
  const workspace = options.workspace ?? 'default';
  await connectUrl(ctx, { workspace, url, name: connection });
  await changeActions(ctx, 'review', { workspace, connection, all: true });
  const asked = await changeActions(ctx, 'ask', { workspace, connection, actions });
  expect(asked).toMatchObject(actions.map(() => ({ state: 'ask' })));
  await grant(ctx, { workspace, agent, connection, scope: 'all' });
}
