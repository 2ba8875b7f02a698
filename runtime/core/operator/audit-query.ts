/**
 * The audit log queried: by workspace, agent, member (their own events,
 * their agents' and those on their behalf), connection, action, decision,
 * outcome, reason and time (a timestamp or a duration back from now), newest
 * first; `beforeId` (the last id of a page) pages back on the id index, as
 * fast on the millionth event as on the first.
 */
import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import { didYouMean } from '../base/nearest-word.ts';
import { delegationOf } from '../model/delegation.ts';
import type { AuditEvent } from '../model/governance.ts';
import { agentOrThrow } from './agents.ts';
import { connectionOrThrow } from './connection-lookup.ts';
import { type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';

export const AuditQuerySchema = z.strictObject({
  workspace: z.string().min(1).optional(),
  agent: z.string().min(1).optional(),
  /** A member's name: what they did and what was done on their behalf. */
  member: z.string().min(1).max(200).optional(),
  connection: z.string().min(1).optional(),
  action: z.string().min(1).optional(),
  decision: z.enum(['allowed', 'denied']).optional(),
  outcome: z.enum(['ok', 'error']).optional(),
  reason: z.string().min(1).optional(),
  since: z.string().optional(),
  until: z.string().optional(),
  afterId: z.coerce.number().int().nonnegative().optional(),
  beforeId: z.coerce.number().int().nonnegative().optional(),
  /** `newest` first (the default) or `oldest` first (a tail reading on from `afterId`). */
  order: z.enum(['newest', 'oldest']).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(100),
});

/**
 * An audit event with the name a person knows its actor by (an agent's name,
 * not its id) and, for a call made on a member's behalf, the delegation
 * chain by name (`onBehalfOf`: the member, the agent, the OAuth client's id,
 * and for a token issued from an ID-JAG the enterprise IdP's provider name).
 */
export type AuditView = AuditEvent & {
  actorName: string;
  onBehalfOf?: { member: string; agent: string; client: string | null; idp?: string };
};

export async function queryAudit(ctx: OperatorContext, input: unknown): Promise<AuditView[]> {
  const q = parseInput(AuditQuerySchema, input);
  const workspaceId = q.workspace ? (await workspaceOrThrow(ctx, q.workspace)).id : undefined;
  for (const named of ['agent', 'connection', 'member'] as const) {
    if (q[named] && !workspaceId)
      throw new GatewayError(
        'invalid_input',
        `an ${named} is named within a workspace: name the workspace too`,
        { field: 'workspace' },
      );
  }
  const actorId =
    q.agent && workspaceId ? (await agentOrThrow(ctx, workspaceId, q.agent)).id : undefined;
  const onBehalfOf =
    q.member && workspaceId ? await memberEvents(ctx, workspaceId, q.member) : undefined;
  const connectionId =
    q.connection && workspaceId
      ? (await connectionOrThrow(ctx, workspaceId, q.connection)).id
      : undefined;
  const events = await ctx.store.audit.query({
    ...(workspaceId ? { workspaceId } : {}),
    ...(actorId ? { actorId } : {}),
    ...(connectionId ? { connectionId } : {}),
    ...(q.action ? { action: q.action } : {}),
    ...(q.decision ? { decision: q.decision } : {}),
    ...(q.outcome ? { outcome: q.outcome } : {}),
    ...(q.reason ? { reason: q.reason } : {}),
    ...(onBehalfOf ? { onBehalfOf } : {}),
    ...(q.since ? { since: instantOf(ctx, q.since, 'since') } : {}),
    ...(q.until ? { until: instantOf(ctx, q.until, 'until') } : {}),
    ...(q.afterId === undefined ? {} : { afterId: q.afterId }),
    ...(q.beforeId === undefined ? {} : { beforeId: q.beforeId }),
    ...(q.order === 'oldest' ? { ascending: true } : {}),
    limit: q.limit,
  });
  return withActorNames(ctx, events);
}

/**
 * What `--member` finds: the member's own events, those of the agents their
 * consents made (each acts for them), and every call whose delegation chain
 * names them.
 */
async function memberEvents(
  ctx: OperatorContext,
  workspaceId: string,
  name: string,
): Promise<{ memberId: string; actorIds: string[] }> {
  const found = await ctx.store.oauth.members.byName(name);
  if (found === undefined || found.workspaceId !== workspaceId) {
    const names = (await ctx.store.oauth.members.list(workspaceId)).map((m) => m.name);
    throw new GatewayError(
      'not_found',
      `no member ${name} in this workspace${didYouMean(name, names)}`,
      { field: 'member' },
    );
  }
  const agents = (await ctx.store.agents.list(workspaceId)).filter((a) => a.memberId === found.id);
  return { memberId: found.id, actorIds: [found.id, ...agents.map((a) => a.id)] };
}

const TIMESTAMP = z.iso.datetime({ offset: true });
const DURATION = /^(\d{1,6})(s|m|h|d|w)$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** A timestamp as it is, or a duration back from now (`30m`, `1h`, `7d`) as the timestamp it names. */
export function instantOf(ctx: Pick<OperatorContext, 'now'>, value: string, field: string): string {
  if (TIMESTAMP.safeParse(value).success) return value;
  const duration = DURATION.exec(value);
  if (duration === null)
    throw new GatewayError(
      'invalid_input',
      `${field}: expected a time (2026-01-31T09:00:00Z) or a duration back from now (30m, 1h, 7d), got ${JSON.stringify(value)}`,
      { field },
    );
  const ms = Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS];
  return new Date(ctx.now().getTime() - ms).toISOString();
}

/**
 * Agents and members by name (their workspace's lists, read once per
 * workspace seen), operators as `cli` or `admin token <first characters of its id>`.
 */
async function withActorNames(ctx: OperatorContext, events: AuditEvent[]): Promise<AuditView[]> {
  const workspaces = new Set(
    events.flatMap((e) =>
      (e.actorKind === 'agent' || e.actorKind === 'member' || e.delegation) && e.workspaceId
        ? [e.workspaceId]
        : [],
    ),
  );
  const names = new Map<string, string>();
  const memberNames = new Map<string, string>();
  for (const workspaceId of workspaces) {
    for (const agent of await ctx.store.agents.list(workspaceId)) names.set(agent.id, agent.name);
    for (const member of await ctx.store.oauth.members.list(workspaceId)) {
      names.set(member.id, `member ${member.name}`);
      memberNames.set(member.id, member.name);
    }
  }
  return events.map((event) => {
    const view: AuditView = { ...event, actorName: actorName(event, names) };
    const chain = delegationOf(event.delegation);
    if (chain)
      view.onBehalfOf = {
        member: memberNames.get(chain.memberId) ?? `member ${chain.memberId.slice(0, 8)}`,
        agent: names.get(chain.agentId) ?? `agent ${chain.agentId.slice(0, 8)}`,
        client: chain.clientId,
        ...(chain.idp === undefined ? {} : { idp: chain.idp }),
      };
    return view;
  });
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
