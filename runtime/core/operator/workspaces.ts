import { z } from 'zod';
import { newId } from '../governance/keys.ts';
import type { Workspace } from '../model/governance.ts';
import { attempt, audit, type OperatorContext, parseInput } from './context.ts';
import { NameSchema } from './names.ts';

export const CreateWorkspaceSchema = z.strictObject({ name: NameSchema });

export async function createWorkspace(ctx: OperatorContext, input: unknown): Promise<Workspace> {
  return attempt(ctx, 'workspace.create', input, async () => {
    const { name } = parseInput(CreateWorkspaceSchema, input);
    const workspace: Workspace = {
      id: newId(),
      name,
      createdAt: ctx.now().toISOString(),
      toolsMode: 'direct',
    };
    await ctx.store.transaction(async (tx) => {
      await tx.workspaces.create(workspace);
      await audit(ctx, tx, {
        action: 'workspace.create',
        workspaceId: workspace.id,
        subject: workspace.name,
      });
    });
    return workspace;
  });
}

export function listWorkspaces(ctx: OperatorContext): Promise<Workspace[]> {
  return ctx.store.workspaces.list();
}
