/**
 * The operator verbs on rate limits: set the calls a minute (and burst) of
 * one agent or one connection over the configured default, list what is
 * set, clear it. Each is a governance change, so every replica applies it
 * on its next call (docs/rate-limits.md).
 */
import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import { newId } from '../governance/keys.ts';
import type { RateLimitOverride, RateLimitSubject } from '../model/rate-limits.ts';
import { agentOrThrow } from './agents.ts';
import { connectionOrThrow } from './connection-lookup.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';

const MAX = 1_000_000;
const Figure = z.number().int().min(1).max(MAX);

/** Exactly one of `agent` and `connection`. */
const SubjectFields = {
  workspace: z.string().min(1),
  agent: z.string().min(1).optional(),
  connection: z.string().min(1).optional(),
};

export const SetRateLimitSchema = z.strictObject({
  ...SubjectFields,
  perMinute: Figure,
  /** Unset: the per-minute figure (a minute's calls at once). */
  burst: Figure.optional(),
});
export const ClearRateLimitSchema = z.strictObject(SubjectFields);

/** An override as shown: named by its agent's or connection's name. */
export interface RateLimitView {
  subject: RateLimitSubject;
  name: string;
  perMinute: number;
  burst: number;
  updatedAt: string;
}

export async function setRateLimit(ctx: OperatorContext, input: unknown): Promise<RateLimitView> {
  return attempt(ctx, 'limits.set', input, async () => {
    const parsed = parseInput(SetRateLimitSchema, input);
    const { workspaceId, subject, id, name } = await subjectOf(ctx, parsed);
    const limit: RateLimitOverride = {
      id: newId(),
      workspaceId,
      subject,
      subjectId: id,
      perMinute: parsed.perMinute,
      burst: parsed.burst ?? parsed.perMinute,
      updatedAt: ctx.now().toISOString(),
    };
    await ctx.store.transaction(async (tx) => {
      await tx.rateLimits.set(limit);
      await audit(ctx, tx, {
        action: 'limits.set',
        workspaceId,
        ...(subject === 'connection' ? { connectionId: id } : {}),
        subject: `${subject} ${name}: ${limit.perMinute}/min, burst ${limit.burst}`,
      });
    });
    return {
      subject,
      name,
      perMinute: limit.perMinute,
      burst: limit.burst,
      updatedAt: limit.updatedAt,
    };
  });
}

export async function listRateLimits(
  ctx: OperatorContext,
  input: unknown,
): Promise<RateLimitView[]> {
  const { workspace: ref } = parseInput(z.strictObject({ workspace: z.string().min(1) }), input);
  const workspace = await workspaceOrThrow(ctx, ref);
  const [limits, agents, connections] = await Promise.all([
    ctx.store.rateLimits.list(workspace.id),
    ctx.store.agents.list(workspace.id),
    ctx.store.connections.list(workspace.id),
  ]);
  const names = new Map<string, string>([
    ...agents.map((a) => [`agent:${a.id}`, a.name] as const),
    ...connections.map((c) => [`connection:${c.id}`, c.name] as const),
  ]);
  return limits.map((limit) => ({
    subject: limit.subject,
    name: names.get(`${limit.subject}:${limit.subjectId}`) ?? limit.subjectId,
    perMinute: limit.perMinute,
    burst: limit.burst,
    updatedAt: limit.updatedAt,
  }));
}

/** Clears the override: the agent or connection is back on the configured default. */
export async function clearRateLimit(
  ctx: OperatorContext,
  input: unknown,
): Promise<{ cleared: boolean }> {
  return attempt(ctx, 'limits.clear', input, async () => {
    const parsed = parseInput(ClearRateLimitSchema, input);
    const { workspaceId, subject, id, name } = await subjectOf(ctx, parsed);
    const cleared = await ctx.store.transaction(async (tx) => {
      const removed = await tx.rateLimits.clear(workspaceId, subject, id);
      if (removed)
        await audit(ctx, tx, {
          action: 'limits.clear',
          workspaceId,
          ...(subject === 'connection' ? { connectionId: id } : {}),
          subject: `${subject} ${name}`,
        });
      return removed;
    });
    return { cleared };
  });
}

async function subjectOf(
  ctx: OperatorContext,
  input: { workspace: string; agent?: string | undefined; connection?: string | undefined },
): Promise<{ workspaceId: string; subject: RateLimitSubject; id: string; name: string }> {
  if ((input.agent === undefined) === (input.connection === undefined))
    throw new GatewayError('invalid_input', 'name either an agent or a connection', {
      field: 'agent',
    });
  const workspace = await workspaceOrThrow(ctx, input.workspace);
  if (input.agent !== undefined) {
    const agent = await agentOrThrow(ctx, workspace.id, input.agent);
    return { workspaceId: workspace.id, subject: 'agent', id: agent.id, name: agent.name };
  }
  const connection = await connectionOrThrow(ctx, workspace.id, input.connection as string);
  return {
    workspaceId: workspace.id,
    subject: 'connection',
    id: connection.id,
    name: connection.name,
  };
}
