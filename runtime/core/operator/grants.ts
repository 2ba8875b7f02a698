import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import { newId } from '../governance/keys.ts';
import type { AgentStatus, Grant } from '../model/governance.ts';
import { REMOTE_MCP_PROVIDER } from '../model/remote.ts';
import { actionOrThrow } from './action-names.ts';
import { agentOrThrow } from './agents.ts';
import { connectionOrThrow } from './connection-lookup.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';

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

/** A grant as it was before `grant` changed it; absent when the grant is new. */
export type GrantChange = Grant & {
  previous?: Pick<Grant, 'scope' | 'actions' | 'credentialMode'>;
};

/**
 * Lets an agent use a connection, or changes what it may use there: one grant
 * per agent and connection, so granting again (`--scope all` on a reads-only
 * grant) widens or narrows the existing one, in place, audited as
 * `grant.update`. The result says what it was before.
 */
export async function grant(ctx: OperatorContext, input: unknown): Promise<GrantChange> {
  return attempt(ctx, 'grant.create', input, async () => {
    const parsed = parseInput(GrantSchema, input);
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    const agent = await agentOrThrow(ctx, workspace.id, parsed.agent);
    const connection = await connectionOrThrow(ctx, workspace.id, parsed.connection);
    // A remote connection's actions are its pinned tools, a native one's its catalog's.
    const known =
      connection.provider === REMOTE_MCP_PROVIDER
        ? (await ctx.store.policies.forConnection(connection.id)).map((policy) => policy.action)
        : [...ctx.catalogs.getOrThrow(connection.provider).actions.keys()];
    const actions = parsed.actions.map((name) => actionOrThrow(connection, known, name, 'actions'));
    const existing = (await ctx.store.grants.forAgent(agent.id)).find(
      (g) => g.connectionId === connection.id,
    );
    const wanted: Grant = {
      id: existing?.id ?? newId(),
      workspaceId: workspace.id,
      agentId: agent.id,
      connectionId: connection.id,
      scope: parsed.scope,
      actions: [...new Set(actions)].sort(),
      credentialMode: parsed.credential,
      createdAt: existing?.createdAt ?? ctx.now().toISOString(),
    };
    if (existing && sameGrant(existing, wanted)) return { ...wanted, previous: terms(existing) };
    await ctx.store.transaction(async (tx) => {
      if (existing) await tx.grants.remove(workspace.id, existing.id);
      await tx.grants.create(wanted);
      await audit(ctx, tx, {
        action: existing ? 'grant.update' : 'grant.create',
        workspaceId: workspace.id,
        connectionId: connection.id,
        subject: agent.id,
      });
    });
    return existing ? { ...wanted, previous: terms(existing) } : wanted;
  });
}

function terms(grant: Grant): Pick<Grant, 'scope' | 'actions' | 'credentialMode'> {
  return { scope: grant.scope, actions: grant.actions, credentialMode: grant.credentialMode };
}

function sameGrant(a: Grant, b: Grant): boolean {
  return (
    a.scope === b.scope &&
    a.credentialMode === b.credentialMode &&
    a.actions.join('\n') === b.actions.join('\n')
  );
}

/** A grant with the names of its agent and connection, and whether its agent is revoked. */
export type GrantView = Grant & { agent: string; agentStatus: AgentStatus; connection: string };

export async function listGrants(ctx: OperatorContext, input: unknown): Promise<GrantView[]> {
  const ref = parseInput(z.strictObject({ workspace: z.string().min(1) }), input);
  const { id } = await workspaceOrThrow(ctx, ref.workspace);
  const [grants, agents, connections] = await Promise.all([
    ctx.store.grants.list(id),
    ctx.store.agents.list(id).then((list) => new Map(list.map((a) => [a.id, a]))),
    ctx.store.connections.list(id).then((list) => new Map(list.map((c) => [c.id, c.name]))),
  ]);
  return grants.map((g) => ({
    ...g,
    agent: agents.get(g.agentId)?.name ?? g.agentId,
    agentStatus: agents.get(g.agentId)?.status ?? 'revoked',
    connection: connections.get(g.connectionId) ?? g.connectionId,
  }));
}

export async function revokeGrant(ctx: OperatorContext, input: unknown): Promise<void> {
  return attempt(ctx, 'grant.revoke', input, async () => {
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
  });
}
