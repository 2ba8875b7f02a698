/**
 * The operator verbs on tools modes: how an agent is served its tools
 * (`direct`, `discovery`, `auto`), set per agent or as its workspace's
 * default (which an agent without its own, such as a member's OAuth client,
 * follows). A change moves the revision: agents listening hear
 * `tools/list_changed`.
 */
import { z } from 'zod';
import { TOOLS_MODES, type ToolsMode, type Workspace } from '../model/governance.ts';
import { type AgentView, agentOrThrow, agentView } from './agents.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';

/** What `--tools` takes for an agent: a mode, or `workspace` to follow the workspace's. */
export const FOLLOW_WORKSPACE = 'workspace';

const ToolsModeSchema = z.enum(TOOLS_MODES as [ToolsMode, ...ToolsMode[]]);

export const SetAgentToolsSchema = z.strictObject({
  workspace: z.string().min(1),
  agent: z.string().min(1),
  tools: z.union([ToolsModeSchema, z.literal(FOLLOW_WORKSPACE)]),
});

export const SetWorkspaceToolsSchema = z.strictObject({
  workspace: z.string().min(1),
  tools: ToolsModeSchema,
});

/** Sets an agent's own tools mode, or (`workspace`) lets it follow its workspace's. */
export async function setAgentTools(ctx: OperatorContext, input: unknown): Promise<AgentView> {
  return attempt(ctx, 'agent.set_tools', input, async () => {
    const { workspace: ref, agent: agentRef, tools } = parseInput(SetAgentToolsSchema, input);
    const workspace = await workspaceOrThrow(ctx, ref);
    const agent = await agentOrThrow(ctx, workspace.id, agentRef);
    const mode = tools === FOLLOW_WORKSPACE ? null : tools;
    await ctx.store.transaction(async (tx) => {
      await tx.agents.setToolsMode(workspace.id, agent.id, mode);
      await audit(ctx, tx, {
        action: 'agent.set_tools',
        workspaceId: workspace.id,
        subject: agent.id,
      });
    });
    return agentView({ ...agent, toolsMode: mode }, workspace);
  });
}

/** Sets the tools mode of the workspace's agents that have none of their own. */
export async function setWorkspaceTools(ctx: OperatorContext, input: unknown): Promise<Workspace> {
  return attempt(ctx, 'workspace.set_tools', input, async () => {
    const { workspace: ref, tools } = parseInput(SetWorkspaceToolsSchema, input);
    const workspace = await workspaceOrThrow(ctx, ref);
    await ctx.store.transaction(async (tx) => {
      await tx.workspaces.setToolsMode(workspace.id, tools);
      await audit(ctx, tx, {
        action: 'workspace.set_tools',
        workspaceId: workspace.id,
        subject: workspace.name,
      });
    });
    return { ...workspace, toolsMode: tools };
  });
}
