import { z } from 'zod';
import { GatewayError } from '../errors.ts';
import type { AuditEvent } from '../governance/model.ts';
import { agentOrThrow } from './agents.ts';
import { type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';

export const AuditQuerySchema = z.strictObject({
  workspace: z.string().min(1).optional(),
  agent: z.string().min(1).optional(),
  action: z.string().min(1).optional(),
  decision: z.enum(['allowed', 'denied']).optional(),
  reason: z.string().min(1).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  afterId: z.coerce.number().int().nonnegative().optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(100),
});

/** An audit event with the name a person knows its actor by (an agent's name, not its id). */
export type AuditView = AuditEvent & { actorName: string };

export async function queryAudit(ctx: OperatorContext, input: unknown): Promise<AuditView[]> {
  const q = parseInput(AuditQuerySchema, input);
  const workspaceId = q.workspace ? (await workspaceOrThrow(ctx, q.workspace)).id : undefined;
  if (q.agent && !workspaceId) {
    throw new GatewayError(
      'invalid_input',
      'an agent is named within a workspace: name the workspace too',
      {
        field: 'workspace',
      },
    );
  }
  const actorId =
    q.agent && workspaceId ? (await agentOrThrow(ctx, workspaceId, q.agent)).id : undefined;
  const events = await ctx.store.audit.query({
    ...(workspaceId ? { workspaceId } : {}),
    ...(actorId ? { actorId } : {}),
    ...(q.action ? { action: q.action } : {}),
    ...(q.decision ? { decision: q.decision } : {}),
    ...(q.reason ? { reason: q.reason } : {}),
    ...(q.since ? { since: q.since } : {}),
    ...(q.until ? { until: q.until } : {}),
    ...(q.afterId === undefined ? {} : { afterId: q.afterId }),
    limit: q.limit,
  });
  return withActorNames(ctx, events);
}

/**
 * Agents and members by name (their workspace's lists, read once per
 * workspace seen), operators as `cli` or `admin token <first characters of its id>`.
 */
async function withActorNames(ctx: OperatorContext, events: AuditEvent[]): Promise<AuditView[]> {
  const workspaces = new Set(
    events.flatMap((e) =>
      (e.actorKind === 'agent' || e.actorKind === 'member') && e.workspaceId ? [e.workspaceId] : [],
    ),
  );
  const names = new Map<string, string>();
  for (const workspaceId of workspaces) {
    for (const agent of await ctx.store.agents.list(workspaceId)) names.set(agent.id, agent.name);
    for (const member of await ctx.store.oauth.members.list(workspaceId)) {
      names.set(member.id, `member ${member.name}`);
    }
  }
  return events.map((event) => ({ ...event, actorName: actorName(event, names) }));
}

function actorName(event: AuditEvent, names: ReadonlyMap<string, string>): string {
  const id = event.actorId ?? '';
  switch (event.actorKind) {
    case 'agent':
      return names.get(id) ?? `agent ${id.slice(0, 8)}`;
    case 'member':
      return names.get(id) ?? `member ${id.slice(0, 8)}`;
    case 'operator':
      return id.startsWith('admin:') ? `admin token ${id.slice(6, 14)}` : id || 'operator';
    case 'system':
      return 'system';
  }
}
