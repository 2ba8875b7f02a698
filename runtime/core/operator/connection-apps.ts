/**
 * The operator verb on a remote connection's MCP Apps: on (the default) or
 * off. Off, its tools are served without `_meta.ui` and its `ui://` pages
 * are neither listed nor read (`action_disabled`), whatever their review
 * says; on again, each page is served as its review allows. A connection
 * setting (`apps`), so a change moves the revision like any governance change.
 */
import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import { APPS_SETTING } from '../governance/decide.ts';
import { REMOTE_MCP_PROVIDER } from '../model/remote.ts';
import { connectionOrThrow } from './connection-lookup.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';

export const SetConnectionAppsSchema = z.strictObject({
  workspace: z.string().min(1),
  connection: z.string().min(1),
  apps: z.enum(['on', 'off']),
});

export interface ConnectionAppsView {
  connection: string;
  apps: 'on' | 'off';
}

export async function setConnectionApps(
  ctx: OperatorContext,
  input: unknown,
): Promise<ConnectionAppsView> {
  return attempt(ctx, 'connection.set_apps', input, async () => {
    const parsed = parseInput(SetConnectionAppsSchema, input);
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    const connection = await connectionOrThrow(ctx, workspace.id, parsed.connection);
    if (connection.provider !== REMOTE_MCP_PROVIDER)
      throw new GatewayError('invalid_input', 'connection: only a remote MCP server serves apps', {
        field: 'connection',
      });
    const { [APPS_SETTING]: _was, ...rest } = connection.settings;
    const settings = parsed.apps === 'off' ? { ...rest, [APPS_SETTING]: 'off' } : rest;
    await ctx.store.transaction(async (tx) => {
      await tx.connections.update(workspace.id, connection.id, {
        settings,
        updatedAt: ctx.now().toISOString(),
      });
      await audit(ctx, tx, {
        action: 'connection.set_apps',
        workspaceId: workspace.id,
        connectionId: connection.id,
        subject: `${connection.name}: apps ${parsed.apps}`,
      });
    });
    return { connection: connection.name, apps: parsed.apps };
  });
}
