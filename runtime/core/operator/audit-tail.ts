/**
 * The audit log read on from a cursor, oldest first, for a live tail: what
 * was written since the last read, by any replica (it reads the store, not
 * this process's memory). Without a cursor it answers the log's newest id,
 * to start from. The cursor moves to the newest id it saw even when no event
 * matched the filters, so a tail on a rare event never walks the same rows again.
 */
import { z } from 'zod';
import { type AuditView, queryAudit } from './audit-query.ts';
import { type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';

/** At most this many events a read; the rest come with the next. */
export const TAIL_LIMIT = 100;

const CursorSchema = z.looseObject({
  workspace: z.string().min(1),
  afterId: z.coerce.number().int().nonnegative().optional(),
});

export interface AuditTail {
  events: AuditView[];
  /** Pass as `afterId` to the next read. */
  cursor: number;
}

export async function tailAudit(ctx: OperatorContext, input: unknown): Promise<AuditTail> {
  const { workspace, afterId } = parseInput(CursorSchema, input);
  const workspaceId = (await workspaceOrThrow(ctx, workspace)).id;
  const newest = (await ctx.store.audit.query({ workspaceId, limit: 1 }))[0]?.id ?? 0;
  if (afterId === undefined || afterId >= newest) return { events: [], cursor: newest };
  const { afterId: _, ...filters } = input as Record<string, unknown>;
  const events = await queryAudit(ctx, {
    ...filters,
    afterId,
    beforeId: newest + 1,
    order: 'oldest',
    limit: TAIL_LIMIT,
  });
  return {
    events,
    cursor: events.length === TAIL_LIMIT ? (events.at(-1)?.id ?? newest) : newest,
  };
}
