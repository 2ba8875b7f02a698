/** The operator verbs on agents: create, list, revoke, rotate a key, delete. */
import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import { didYouMean } from '../base/nearest-word.ts';
import { hashKey, keyPrefixOf, newAgentKey, newId } from '../governance/keys.ts';
import type { Agent, ToolsMode, Workspace } from '../model/governance.ts';
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
    const taken = (await ctx.store.agents.list(workspace.id)).find((a) => a.name === name);
    if (taken)
      throw new GatewayError(
        'conflict',
        taken.status === 'revoked'
          ? `a revoked agent ${name} holds this name: portcullis agent delete ${name} frees it`
          : `an agent ${name} exists in this workspace: portcullis agent rotate-key ${name} gives it a new key`,
        { field: 'name' },
      );
    const key = newAgentKey();
    const agent: Agent = {
      id: newId(),
      workspaceId: workspace.id,
      name,
      keyPrefix: keyPrefixOf(key),
      status: 'active',
      createdAt: ctx.now().toISOString(),
      revokedAt: null,
      memberId: null,
      toolsMode: null,
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

/** An agent with the tools mode it is served by: its own, or its workspace's. */
export type AgentView = Agent & { tools: ToolsMode; toolsFrom: 'agent' | 'workspace' };

export function agentView(agent: Agent, workspace: Workspace): AgentView {
  return {
    ...agent,
    tools: agent.toolsMode ?? workspace.toolsMode,
    toolsFrom: agent.toolsMode === null ? 'workspace' : 'agent',
  };
}

/** The workspace's agents, each with the tools mode it is served by (its own, or the workspace's). */
export async function listAgents(ctx: OperatorContext, input: unknown): Promise<AgentView[]> {
  const { workspace: ref } = parseInput(z.strictObject({ workspace: z.string().min(1) }), input);
  const workspace = await workspaceOrThrow(ctx, ref);
  return (await ctx.store.agents.list(workspace.id)).map((agent) => agentView(agent, workspace));
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

/** An agent as a verb left it, and whether the verb changed anything. */
export type AgentChange = Agent & { changed: boolean };

/**
 * Revokes an agent's key: its next request is refused, in this process and
 * every other. Revoking a revoked agent changes nothing and says so.
 */
export async function revokeAgent(ctx: OperatorContext, input: unknown): Promise<AgentChange> {
  return attempt(ctx, 'agent.revoke', input, async () => {
    const { workspace: ref, agent: agentRef } = parseInput(AgentRefSchema, input);
    const workspace = await workspaceOrThrow(ctx, ref);
    const agent = await agentOrThrow(ctx, workspace.id, agentRef);
    if (agent.status === 'revoked') return { ...agent, changed: false };
    const at = ctx.now().toISOString();
    await ctx.store.transaction(async (tx) => {
      await tx.agents.revoke(workspace.id, agent.id, at);
      await audit(ctx, tx, {
        action: 'agent.revoke',
        workspaceId: workspace.id,
        subject: agent.id,
      });
    });
    return { ...agent, status: 'revoked', revokedAt: at, changed: true };
  });
}

/**
 * Gives an active agent a new key, shown once; the old key is refused from
 * the next request on, in this process and every other. Its grants stay.
 */
export async function rotateAgentKey(
  ctx: OperatorContext,
  input: unknown,
): Promise<{ agent: Agent; key: string }> {
  return attempt(ctx, 'agent.rotate_key', input, async () => {
    const { workspace: ref, agent: agentRef } = parseInput(AgentRefSchema, input);
    const workspace = await workspaceOrThrow(ctx, ref);
    const agent = await agentOrThrow(ctx, workspace.id, agentRef);
    if (agent.status === 'revoked')
      throw new GatewayError(
        'conflict',
        `agent ${agent.name} is revoked: a revoked agent gets no new key (portcullis agent delete ${agent.name} frees its name)`,
        { field: 'agent' },
      );
    const key = newAgentKey();
    const keyPrefix = keyPrefixOf(key);
    await ctx.store.transaction(async (tx) => {
      await tx.agents.replaceKey(workspace.id, agent.id, keyPrefix, hashKey(key));
      await audit(ctx, tx, {
        action: 'agent.rotate_key',
        workspaceId: workspace.id,
        subject: agent.id,
      });
    });
    return { agent: { ...agent, keyPrefix }, key };
  });
}

/**
 * Deletes an agent (active or revoked) with its grants, personal credentials
 * and consents; its name is free again. The audit log keeps its history.
 */
export async function deleteAgent(ctx: OperatorContext, input: unknown): Promise<Agent> {
  return attempt(ctx, 'agent.delete', input, async () => {
    const { workspace: ref, agent: agentRef } = parseInput(AgentRefSchema, input);
    const workspace = await workspaceOrThrow(ctx, ref);
    const agent = await agentOrThrow(ctx, workspace.id, agentRef);
    await ctx.store.transaction(async (tx) => {
      if (!(await tx.agents.remove(workspace.id, agent.id)))
        throw new GatewayError('not_found', `no agent ${agent.name} in this workspace`, {
          field: 'agent',
        });
      await audit(ctx, tx, {
        action: 'agent.delete',
        workspaceId: workspace.id,
        subject: agent.id,
      });
    });
    return agent;
  });
}
