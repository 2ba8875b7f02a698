/**
 * `portcullis disconnect <connection>`: removes a connection with its
 * credentials, grants and policies (and a remote one's endpoint record and
 * pinned tools), and forgets every upstream session this process holds for
 * it, ending them upstream where the server allows; a running gateway in
 * another process ends its own within a second, when it sees the store's
 * revision move (`UpstreamSessionSweep`). The audit log keeps its history:
 * the events name the connection's id, which is never reused.
 */
import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import { REMOTE_MCP_PROVIDER } from '../model/remote.ts';
import { upstreamTarget } from '../sources/remote-mcp/upstream-targets.ts';
import { connectionOrThrow } from './connection-lookup.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';

const DisconnectSchema = z.strictObject({
  workspace: z.string().min(1),
  connection: z.string().min(1),
});

export interface Disconnected {
  connection: string;
  /** Upstream sessions forgotten (in this process). */
  sessions: number;
}

export async function disconnect(ctx: OperatorContext, input: unknown): Promise<Disconnected> {
  return attempt(ctx, 'connection.remove', input, async () => {
    const parsed = parseInput(DisconnectSchema, input);
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    const connection = await connectionOrThrow(ctx, workspace.id, parsed.connection);
    const endpoint =
      connection.provider === REMOTE_MCP_PROVIDER
        ? await ctx.store.remoteEndpoints.byConnection(connection.id)
        : undefined;
    const credential = endpoint
      ? ctx.vault.open(await ctx.store.credentials.forConnection(connection.id, null))
      : undefined;
    await ctx.store.transaction(async (tx) => {
      if (!(await tx.connections.remove(workspace.id, connection.id)))
        throw new GatewayError('not_found', `no connection ${connection.name} in this workspace`, {
          field: 'connection',
        });
      await audit(ctx, tx, {
        action: 'connection.remove',
        workspaceId: workspace.id,
        connectionId: connection.id,
        subject: connection.name,
      });
    });
    const sessions = ctx.remote?.executor.forgetConnection(connection.id) ?? [];
    if (endpoint && ctx.remote) {
      const target = upstreamTarget(endpoint, credential);
      await Promise.allSettled(
        sessions.map((session) => ctx.remote!.client.close(target, session)),
      );
    }
    return { connection: connection.name, sessions: sessions.length };
  });
}
