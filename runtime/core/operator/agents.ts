import { z } from 'zod';
import { GatewayError } from '../errors.ts';
import { hashKey, keyPrefixOf, newAgentKey, newId } from '../governance/keys.ts';
import type { Agent } from '../governance/model.ts';
import { didYouMean } from '../nearest-word.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';
import { NameSchema } from './names.ts';

export const CreateAgentSchema = z.strictObject({ workspace: z.string().min(1), name: NameSchema });
export const AgentRefSchema = z.strictObject({
  workspace: z.string().min(1),
  agent: z.string().min(1),
});

/** Creates an agent; its key is in the result once and never again. */
export async function createAgent(
  ctx: OperatorContext,
  input: unknown,
): Promise<{ agent: Agent; key: string }> {
  return attempt(ctx, 'agent.create', input, async () => {
    const { workspace: ref, name } = parseInput(CreateAgentSchema, input);
    const workspace = await workspaceOrThrow(ctx, ref);
    const key = newAgentKey();
    const agent: Agent = {
      id: newId(),
      workspaceId: workspace.id,
      name,
      keyPrefix: keyPrefixOf(key),
      status: 'active',
      createdAt: ctx.now().toISOString(),
      revokedAt: null,
    };
    await ctx.store.transaction(async (tx) => {
      await tx.agents.create(agent, hashKey(key));
      await audit(ctx, tx, {
        action: 'agent.create',
        workspaceId: workspace.id,
        subject: agent.id,
      });
    });
    return { agent, key };
  });
}

export async function listAgents(ctx: OperatorContext, input: unknown): Promise<Agent[]> {
  const { workspace: ref } = parseInput(z.strictObject({ workspace: z.string().min(1) }), input);
  return ctx.store.agents.list((await workspaceOrThrow(ctx, ref)).id);
}

export async function agentOrThrow(
  ctx: OperatorContext,
  workspaceId: string,
  ref: string,
): Promise<Agent> {
  const byId = await ctx.store.agents.byId(workspaceId, ref);
  if (byId) return byId;
  const agents = await ctx.store.agents.list(workspaceId);
  const agent = agents.find((a) => a.name === ref);
  if (!agent)
    throw new GatewayError(
      'not_found',
      `no agent ${ref} in this workspace${didYouMean(
        ref,
        agents.map((a) => a.name),
      )}`,
      { field: 'agent' },
    );
  return agent;
}

/** Revokes an agent's key: its next request is refused, in this process and every other. */
export async function revokeAgent(ctx: OperatorContext, input: unknown): Promise<Agent> {
  return attempt(ctx, 'agent.revoke', input, async () => {
    const { workspace: ref, agent: agentRef } = parseInput(AgentRefSchema, input);
    const workspace = await workspaceOrThrow(ctx, ref);
    const agent = await agentOrThrow(ctx, workspace.id, agentRef);
    const at = ctx.now().toISOString();
    await ctx.store.transaction(async (tx) => {
      await tx.agents.revoke(workspace.id, agent.id, at);
      await audit(ctx, tx, {
        action: 'agent.revoke',
        workspaceId: workspace.id,
        subject: agent.id,
      });
    });
    return { ...agent, status: 'revoked', revokedAt: at };
  });
}
