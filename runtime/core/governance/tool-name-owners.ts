/**
 * No tool takes another's name: the check connect, refresh and review make
 * before a connection's tools are pinned or approved. The name rule
 * (governance/tool-names.ts) makes a collision impossible across
 * connections; this refuses, naming both owners, whatever slips past it (two
 * long names of one server fitted to the same name, a store written some
 * other way), so a collision is never resolved by the order rows are read in.
 */
import type { Connection } from '../model/governance.ts';
import { REMOTE_MCP_PROVIDER } from '../model/remote.ts';
import type { Store } from '../ports/store.ts';
import { type NamedAction, toolNameCollisionError, toolNameCollisions } from './tool-names.ts';
import type { ToolSources } from './tool-source.ts';

/** What the check reads besides the store: each connection's tool source. */
export interface ToolNameOwnersContext {
  readonly toolSources: ToolSources;
}

/**
 * Refuses (`conflict`) when the connection's tools (as `actions` names them,
 * else as stored) would share a name with each other or with another tool of
 * its workspace. `ctx` is the operator's context, of which only the tool
 * sources are read.
 */
export async function assertToolNamesFree(
  ctx: ToolNameOwnersContext,
  tx: Store,
  connection: Connection,
  actions?: readonly string[],
): Promise<void> {
  const named: NamedAction[] = [];
  for (const other of await tx.connections.list(connection.workspaceId)) {
    if (other.id === connection.id) continue;
    for (const action of await toolsOf(ctx, tx, other)) named.push({ connection: other, action });
  }
  for (const action of actions ?? (await toolsOf(ctx, tx, connection)))
    named.push({ connection, action });
  const [collision] = toolNameCollisions(named);
  if (collision) throw toolNameCollisionError(collision);
}

/** A connection's tools as stored now: a remote one's pinned list, a native one's catalog. */
async function toolsOf(
  ctx: ToolNameOwnersContext,
  tx: Store,
  connection: Connection,
): Promise<string[]> {
  if (connection.provider === REMOTE_MCP_PROVIDER)
    return (await tx.remoteTools.forConnection(connection.id)).map((tool) => tool.name);
  return ctx.toolSources.of(connection)?.actions.map((action) => action.name) ?? [];
}
