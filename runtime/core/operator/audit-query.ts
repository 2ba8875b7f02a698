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

export async function queryAudit(ctx: OperatorContext, input: unknown): Promise<AuditEvent[]> {
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
  return ctx.store.audit.query({
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
}
