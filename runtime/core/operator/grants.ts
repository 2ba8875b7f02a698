import { z } from 'zod';
import { GatewayError } from '../errors.ts';
import { newId } from '../governance/keys.ts';
import type { Grant } from '../governance/model.ts';
import { agentOrThrow } from './agents.ts';
import { connectionOrThrow } from './connections.ts';
import { audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';

export const GrantSchema = z
  .strictObject({
    workspace: z.string().min(1),
    agent: z.string().min(1),
    connection: z.string().min(1),
    scope: z.enum(['all', 'reads', 'actions']).default('reads'),
    actions: z.array(z.string().min(1)).default([]),
    credential: z.enum(['shared', 'personal']).default('shared'),
  })
  .refine((g) => (g.scope === 'actions') === g.actions.length > 0, {
    message: 'list actions exactly when the scope is actions',
    path: ['actions'],
  });

export async function grant(ctx: OperatorContext, input: unknown): Promise<Grant> {
  const parsed = parseInput(GrantSchema, input);
  const workspace = await workspaceOrThrow(ctx, parsed.workspace);
  const agent = await agentOrThrow(ctx, workspace.id, parsed.agent);
  const connection = await connectionOrThrow(ctx, workspace.id, parsed.connection);
  const provider = ctx.catalogs.getOrThrow(connection.provider);
  const unknown = parsed.actions.find((name) => !provider.actions.has(name));
  if (unknown)
    throw new GatewayError('not_found', `${provider.id} has no action ${unknown}`, {
      field: 'actions',
    });
  const created: Grant = {
    id: newId(),
    workspaceId: workspace.id,
    agentId: agent.id,
    connectionId: connection.id,
    scope: parsed.scope,
    actions: [...new Set(parsed.actions)].sort(),
    credentialMode: parsed.credential,
    createdAt: ctx.now().toISOString(),
  };
  await ctx.store.transaction(async (tx) => {
    await tx.grants.create(created);
    await audit(ctx, tx, {
      action: 'grant.create',
      workspaceId: workspace.id,
      connectionId: connection.id,
      subject: agent.id,
    });
  });
  return created;
}

export async function listGrants(ctx: OperatorContext, input: unknown): Promise<Grant[]> {
  const { workspace } = parseInput(z.strictObject({ workspace: z.string().min(1) }), input);
  return ctx.store.grants.list((await workspaceOrThrow(ctx, workspace)).id);
}

export async function revokeGrant(ctx: OperatorContext, input: unknown): Promise<void> {
  const parsed = parseInput(
    z.strictObject({
      workspace: z.string().min(1),
      agent: z.string().min(1),
      connection: z.string().min(1),
    }),
    input,
  );
  const workspace = await workspaceOrThrow(ctx, parsed.workspace);
  const agent = await agentOrThrow(ctx, workspace.id, parsed.agent);
  const connection = await connectionOrThrow(ctx, workspace.id, parsed.connection);
  const existing = (await ctx.store.grants.forAgent(agent.id)).find(
    (g) => g.connectionId === connection.id,
  );
  if (!existing)
    throw new GatewayError('not_found', `${agent.name} has no grant on ${connection.name}`, {
      field: 'connection',
    });
  await ctx.store.transaction(async (tx) => {
    await tx.grants.remove(workspace.id, existing.id);
    await audit(ctx, tx, {
      action: 'grant.revoke',
      workspaceId: workspace.id,
      connectionId: connection.id,
      subject: agent.id,
    });
  });
}
