import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import { newId } from '../governance/keys.ts';
import type { AgentStatus, Grant, MemberGrant } from '../model/governance.ts';
import { REMOTE_MCP_PROVIDER } from '../model/remote.ts';
import { actionOrThrow } from './action-names.ts';
import { agentOrThrow } from './agents.ts';
import { connectionOrThrow } from './connection-lookup.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';
import { memberOrThrow } from './members.ts';

/** Who holds a grant: an agent, or a member (for every client the member approves). */
const HolderSchema = {
  agent: z.string().min(1).optional(),
  member: z.string().min(1).optional(),
};
const oneHolder = (g: { agent?: string | undefined; member?: string | undefined }) =>
  (g.agent === undefined) !== (g.member === undefined);
const ONE_HOLDER = { message: 'name an agent or a member (--member), not both', path: ['agent'] };

export const GrantSchema = z
  .strictObject({
    workspace: z.string().min(1),
    ...HolderSchema,
    connection: z.string().min(1),
    scope: z.enum(['all', 'reads', 'actions']).default('reads'),
    actions: z.array(z.string().min(1)).default([]),
    credential: z.enum(['shared', 'personal']).default('shared'),
  })
  .refine(oneHolder, ONE_HOLDER)
  .refine((g) => (g.scope === 'actions') === g.actions.length > 0, {
    message: 'list actions exactly when the scope is actions',
    path: ['actions'],
  })
  // A member's agents (one per client) have no personal credentials of their own to use.
  .refine((g) => g.member === undefined || g.credential === 'shared', {
    message: "a member's grant uses the connection's shared credential",
    path: ['credential'],
  });

/** A grant as it was before `grant` changed it; absent when the grant is new. */
export type GrantChange = Grant & {
  previous?: Pick<Grant, 'scope' | 'actions' | 'credentialMode'>;
};
/** A member's grant, and what it was before `grant` changed it. */
export type MemberGrantChange = MemberGrant & {
  credentialMode: 'shared';
  previous?: Pick<Grant, 'scope' | 'actions' | 'credentialMode'>;
};

/**
 * Lets an agent use a connection, or changes what it may use there: one grant
 * per agent and connection, so granting again (`--scope all` on a reads-only
 * grant) widens or narrows the existing one, in place, audited as
 * `grant.update`. The result says what it was before.
 */
export async function grant(
  ctx: OperatorContext,
  input: unknown,
): Promise<GrantChange | MemberGrantChange> {
  return attempt(ctx, 'grant.create', input, async () => {
    const parsed = parseInput(GrantSchema, input);
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    const connection = await connectionOrThrow(ctx, workspace.id, parsed.connection);
    // A remote connection's actions are its pinned tools, a native one's its catalog's.
    const known =
      connection.provider === REMOTE_MCP_PROVIDER
        ? (await ctx.store.policies.forConnection(connection.id)).map((policy) => policy.action)
        : [...ctx.catalogs.getOrThrow(connection.provider).actions.keys()];
    const actions = parsed.actions.map((name) => actionOrThrow(connection, known, name, 'actions'));
    const terms = {
      scope: parsed.scope,
      actions: [...new Set(actions)].sort(),
      credentialMode: parsed.credential,
    };
    if (parsed.member !== undefined) {
      const member = await memberOrThrow(ctx, workspace.id, parsed.member);
      const existing = (await ctx.store.memberGrants.forMember(member.id)).find(
        (g) => g.connectionId === connection.id,
      );
      const wanted: MemberGrant = {
        id: existing?.id ?? newId(),
        workspaceId: workspace.id,
        memberId: member.id,
        connectionId: connection.id,
        scope: terms.scope,
        actions: terms.actions,
        createdAt: existing?.createdAt ?? ctx.now().toISOString(),
      };
      const shared = (g: MemberGrant) => ({ ...g, credentialMode: 'shared' as const });
      if (existing && sameGrant(shared(existing), shared(wanted)))
        return { ...shared(wanted), previous: terms_(shared(existing)) };
      await ctx.store.transaction(async (tx) => {
        if (existing) await tx.memberGrants.remove(workspace.id, existing.id);
        await tx.memberGrants.create(wanted);
        await audit(ctx, tx, {
          action: existing ? 'grant.update' : 'grant.create',
          workspaceId: workspace.id,
          connectionId: connection.id,
          subject: member.id,
        });
      });
      return existing ? { ...shared(wanted), previous: terms_(shared(existing)) } : shared(wanted);
    }
    const agent = await agentOrThrow(ctx, workspace.id, parsed.agent ?? '');
    const existing = (await ctx.store.grants.forAgent(agent.id)).find(
      (g) => g.connectionId === connection.id,
    );
    const wanted: Grant = {
      id: existing?.id ?? newId(),
      workspaceId: workspace.id,
      agentId: agent.id,
      connectionId: connection.id,
      ...terms,
      createdAt: existing?.createdAt ?? ctx.now().toISOString(),
    };
    if (existing && sameGrant(existing, wanted)) return { ...wanted, previous: terms_(existing) };
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
    return existing ? { ...wanted, previous: terms_(existing) } : wanted;
  });
}

function terms_(
  grant: Pick<Grant, 'scope' | 'actions' | 'credentialMode'>,
): Pick<Grant, 'scope' | 'actions' | 'credentialMode'> {
  return { scope: grant.scope, actions: grant.actions, credentialMode: grant.credentialMode };
}

type Terms = Pick<Grant, 'scope' | 'actions' | 'credentialMode'>;

function sameGrant(a: Terms, b: Terms): boolean {
  return (
    a.scope === b.scope &&
    a.credentialMode === b.credentialMode &&
    a.actions.join('\n') === b.actions.join('\n')
  );
}

/** A grant with the names of its agent and connection, and whether its agent is revoked. */
export type GrantView = Grant & { agent: string; agentStatus: AgentStatus; connection: string };
/** A member's grant with the names of its member and connection. */
export type MemberGrantView = MemberGrant & {
  member: string;
  connection: string;
  credentialMode: 'shared';
};

/** A workspace's grants: its agents' first, then its members'. */
export async function listGrants(
  ctx: OperatorContext,
  input: unknown,
): Promise<Array<GrantView | MemberGrantView>> {
  const ref = parseInput(z.strictObject({ workspace: z.string().min(1) }), input);
  const { id } = await workspaceOrThrow(ctx, ref.workspace);
  const [grants, memberGrants, agents, members, connections] = await Promise.all([
    ctx.store.grants.list(id),
    ctx.store.memberGrants.list(id),
    ctx.store.agents.list(id).then((list) => new Map(list.map((a) => [a.id, a]))),
    ctx.store.oauth.members.list(id).then((list) => new Map(list.map((m) => [m.id, m.name]))),
    ctx.store.connections.list(id).then((list) => new Map(list.map((c) => [c.id, c.name]))),
  ]);
  return [
    ...grants.map((g) => ({
      ...g,
      agent: agents.get(g.agentId)?.name ?? g.agentId,
      agentStatus: agents.get(g.agentId)?.status ?? ('revoked' as const),
      connection: connections.get(g.connectionId) ?? g.connectionId,
    })),
    ...memberGrants.map((g) => ({
      ...g,
      member: members.get(g.memberId) ?? g.memberId,
      connection: connections.get(g.connectionId) ?? g.connectionId,
      credentialMode: 'shared' as const,
    })),
  ];
}

export async function revokeGrant(ctx: OperatorContext, input: unknown): Promise<void> {
  return attempt(ctx, 'grant.revoke', input, async () => {
    const parsed = parseInput(
      z
        .strictObject({
          workspace: z.string().min(1),
          ...HolderSchema,
          connection: z.string().min(1),
        })
        .refine(oneHolder, ONE_HOLDER),
      input,
    );
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    const connection = await connectionOrThrow(ctx, workspace.id, parsed.connection);
    const holder =
      parsed.member !== undefined
        ? await memberOrThrow(ctx, workspace.id, parsed.member)
        : await agentOrThrow(ctx, workspace.id, parsed.agent ?? '');
    const existing = (
      parsed.member !== undefined
        ? await ctx.store.memberGrants.forMember(holder.id)
        : await ctx.store.grants.forAgent(holder.id)
    ).find((g) => g.connectionId === connection.id);
    if (!existing)
      throw new GatewayError('not_found', `${holder.name} has no grant on ${connection.name}`, {
        field: 'connection',
      });
    await ctx.store.transaction(async (tx) => {
      if (parsed.member !== undefined) await tx.memberGrants.remove(workspace.id, existing.id);
      else await tx.grants.remove(workspace.id, existing.id);
      await audit(ctx, tx, {
        action: 'grant.revoke',
        workspaceId: workspace.id,
        connectionId: connection.id,
        subject: holder.id,
      });
    });
  });
}
