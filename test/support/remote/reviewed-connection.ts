/**
 * A remote MCP server connected by URL as most remote tests need it: its
 * tools, prompts and resources reviewed (they are held until then) and a
 * reads grant for one agent, all in the default workspace.
 */
import { changeActions } from '../../../runtime/core/operator/actions.ts';
import type { OperatorContext } from '../../../runtime/core/operator/context.ts';
import { grant } from '../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../runtime/core/operator/remote-connections.ts';

export async function connectReviewed(
  ctx: OperatorContext,
  connection: { url: string; name: string },
  agent: string,
): Promise<void> {
  const workspace = 'default';
  await connectUrl(ctx, { workspace, url: connection.url, name: connection.name });
  await changeActions(ctx, 'review', { workspace, connection: connection.name, all: true });
  await grant(ctx, { workspace, agent, connection: connection.name, scope: 'reads' });
}
