/**
 * The approvers' verbs on calls held for approval (docs/approvals.md): the
 * list, one approval whole, approve, deny. A call is approved or denied
 * once, by a compare-and-set on its state in the store (whichever replica
 * the approver reaches); a member may not approve a call made for them
 * unless `PORTCULLIS_APPROVAL_SELF=allow`. Each step is an audit event
 * naming `approval:<id>`; the arguments are shown as the agent sent them,
 * write-only values masked, as text (every surface shows them inert).
 */
import { z } from 'zod';
import type { Classification } from '../../../generated/catalog-format.ts';
import { GatewayError } from '../base/errors.ts';
import type { Approval, ApprovalState } from '../model/approvals.ts';
import { answeredTask } from '../pipeline/held-calls.ts';
import { connectionViewOf } from './connection-views.ts';
import {
  attempt,
  audit,
  MEMBER_ACTOR,
  type OperatorContext,
  parseInput,
  workspaceOrThrow,
} from './context.ts';

export interface ApprovalView {
  id: string;
  /** `pending` past its time is shown `expired`. */
  state: ApprovalState;
  agent: string;
  /** The member the agent acts for, if any. */
  member: string | null;
  connection: string;
  /** The remote server's label (`unverified server: host` while no curated definition names it). */
  server?: { label: string; verified: boolean };
  /** The tool as the agent called it (as listings print it). */
  action: string;
  classification: Classification;
  /** The arguments as sent, write-only values masked (the agent's text: show it inert). */
  arguments: Record<string, unknown>;
  argumentsHash: string;
  createdAt: string;
  expiresAt: string;
  decidedBy: string | null;
  decidedAt: string | null;
  reason: string | null;
  executedAt: string | null;
  /** Whether the call answered its client a task. */
  task: boolean;
}

const ListSchema = z.strictObject({
  workspace: z.string().min(1),
  state: z.enum(['pending', 'approved', 'denied', 'expired', 'executed', 'all']).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

const OneSchema = z.strictObject({ workspace: z.string().min(1), approval: z.string().min(1) });

const DenySchema = OneSchema.extend({ reason: z.string().max(500).optional() });

export async function listApprovals(ctx: OperatorContext, input: unknown): Promise<ApprovalView[]> {
  const parsed = parseInput(ListSchema, input);
  const workspace = await workspaceOrThrow(ctx, parsed.workspace);
  const state = parsed.state ?? 'pending';
  const rows = await ctx.store.approvals.list(
    workspace.id,
    state === 'all' ? undefined : state === 'expired' ? ['expired', 'pending'] : [state],
    parsed.limit ?? 100,
  );
  const views = await viewsOf(ctx, workspace.id, rows);
  return state === 'all' ? views : views.filter((view) => view.state === state);
}

/** How many calls of the workspace wait for an approver now (the console's count). */
export async function countPendingApprovals(
  ctx: OperatorContext,
  input: unknown,
): Promise<{ pending: number }> {
  const parsed = parseInput(z.strictObject({ workspace: z.string().min(1) }), input);
  const workspace = await workspaceOrThrow(ctx, parsed.workspace);
  return {
    pending: await ctx.store.approvals.countPending(workspace.id, ctx.now().toISOString()),
  };
}

export async function showApproval(ctx: OperatorContext, input: unknown): Promise<ApprovalView> {
  const parsed = parseInput(OneSchema, input);
  const workspace = await workspaceOrThrow(ctx, parsed.workspace);
  const [view] = await viewsOf(ctx, workspace.id, [
    await approvalOrThrow(ctx, workspace.id, parsed.approval),
  ]);
  return view!;
}

export async function approveApproval(ctx: OperatorContext, input: unknown): Promise<ApprovalView> {
  return attempt(ctx, 'approval.approve', input, async () => {
    const parsed = parseInput(OneSchema, input);
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    const approval = await approvalOrThrow(ctx, workspace.id, parsed.approval);
    if (
      ctx.approvals?.self !== 'allow' &&
      approval.memberId !== null &&
      ctx.actor === `${MEMBER_ACTOR}${approval.memberId}`
    ) {
      throw new GatewayError(
        'approval_self_refused',
        `approval ${approval.id} is of a call made for you: another owner or operator approves it`,
        { field: 'approval' },
      );
    }
    const now = ctx.now();
    const ttlMs = ctx.approvals?.ttlMs ?? 900_000;
    const changed = await ctx.store.approvals.change(
      approval.id,
      ['pending'],
      {
        state: 'approved',
        decidedBy: ctx.actor,
        decidedAt: now.toISOString(),
        // The agent has the approval's whole time again to make its call.
        expiresAt: new Date(now.getTime() + ttlMs).toISOString(),
      },
      now.toISOString(),
    );
    if (!changed) throw settled(approval);
    await audit(ctx, ctx.store, {
      action: 'approval.approve',
      workspaceId: workspace.id,
      connectionId: approval.connectionId,
      subject: `approval:${approval.id}`,
    });
    // A task client's call runs now, on whichever replica claims it (never awaited).
    ctx.approvals?.approved?.(approval.id);
    return showApproval(ctx, { workspace: parsed.workspace, approval: approval.id });
  });
}

export async function denyApproval(ctx: OperatorContext, input: unknown): Promise<ApprovalView> {
  return attempt(ctx, 'approval.deny', input, async () => {
    const parsed = parseInput(DenySchema, input);
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    const approval = await approvalOrThrow(ctx, workspace.id, parsed.approval);
    const now = ctx.now().toISOString();
    const reason = parsed.reason?.trim() || null;
    const changed = await ctx.store.approvals.change(
      approval.id,
      ['pending', 'approved'],
      { state: 'denied', decidedBy: ctx.actor, decidedAt: now, reason },
      now,
    );
    if (!changed) throw settled(approval);
    await audit(ctx, ctx.store, {
      action: 'approval.deny',
      workspaceId: workspace.id,
      connectionId: approval.connectionId,
      subject: `approval:${approval.id}${reason === null ? '' : `; why: ${reason}`}`.slice(0, 600),
    });
    return showApproval(ctx, { workspace: parsed.workspace, approval: approval.id });
  });
}

async function approvalOrThrow(
  ctx: OperatorContext,
  workspaceId: string,
  id: string,
): Promise<Approval> {
  const approval = await ctx.store.approvals.byId(id);
  // Another workspace's approval does not exist, as far as this one can tell.
  if (approval === undefined || approval.workspaceId !== workspaceId)
    throw new GatewayError('not_found', `no approval ${id} in this workspace`, {
      field: 'approval',
    });
  return approval;
}

function settled(approval: Approval): GatewayError {
  return new GatewayError(
    'conflict',
    `approval ${approval.id} is no longer pending (it was decided, or it expired)`,
    { field: 'approval' },
  );
}

async function viewsOf(
  ctx: OperatorContext,
  workspaceId: string,
  rows: readonly Approval[],
): Promise<ApprovalView[]> {
  if (rows.length === 0) return [];
  const [agents, connections, members] = await Promise.all([
    ctx.store.agents.list(workspaceId),
    ctx.store.connections.list(workspaceId),
    ctx.store.oauth.members.list(workspaceId),
  ]);
  const agentName = new Map(agents.map((a) => [a.id, a.name]));
  const memberName = new Map(members.map((m) => [m.id, m.name]));
  const byId = new Map(connections.map((c) => [c.id, c]));
  const servers = new Map<string, ApprovalView['server']>();
  const now = ctx.now().getTime();
  const views: ApprovalView[] = [];
  for (const row of rows) {
    const connection = byId.get(row.connectionId);
    if (connection !== undefined && !servers.has(connection.id)) {
      const remote = (await connectionViewOf(ctx, connection)).remote;
      servers.set(connection.id, remote && { label: remote.label, verified: remote.verified });
    }
    const server = connection === undefined ? undefined : servers.get(connection.id);
    const live = row.state === 'pending' || row.state === 'approved';
    const shown: unknown = JSON.parse(row.shownArguments);
    views.push({
      id: row.id,
      state: live && Date.parse(row.expiresAt) <= now ? 'expired' : row.state,
      agent: agentName.get(row.agentId) ?? row.agentId,
      member: row.memberId === null ? null : (memberName.get(row.memberId) ?? row.memberId),
      connection: connection?.name ?? row.connectionId,
      ...(server ? { server } : {}),
      action: row.action,
      classification: row.classification,
      arguments:
        typeof shown === 'object' && shown !== null ? (shown as Record<string, unknown>) : {},
      argumentsHash: row.argumentsHash,
      createdAt: row.createdAt,
      expiresAt: row.expiresAt,
      decidedBy: row.decidedBy,
      decidedAt: row.decidedAt,
      reason: row.reason,
      executedAt: row.executedAt,
      task: answeredTask(row),
    });
  }
  return views;
}
