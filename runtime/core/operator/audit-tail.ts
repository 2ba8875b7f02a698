/**
 * The audit log read on from a cursor, oldest first, for a live tail: what
 * was written since the last read, by any replica (it reads the store, not
 * this process's memory). Without a cursor it starts from the log's settled
 * end (below).
 *
 * Ids are handed out in order but may become visible out of order: on
 * PostgreSQL a transaction that took id 10 can commit after one that took
 * id 11, so a cursor moved to 11 would never see 10. So the cursor trails:
 * it moves only as far as the newest event written more than `SETTLE_MS`
 * ago (an audit write's transaction is far shorter), and a read answers
 * every event after it, the settled and the fresh ones. A fresh event is
 * therefore answered again by the next reads until it settles; the client
 * keeps the ids it has shown above the cursor and skips them. The cursor
 * moves past events no filter matched too, so a tail on a rare event never
 * walks the same rows again.
 */
import { z } from 'zod';
import { type AuditView, queryAudit } from './audit-query.ts';
import { type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';

/** At most this many events a read; the rest come with the next. */
export const TAIL_LIMIT = 100;

/** How long an event may take from its time to being visible; the cursor stays this far behind. */
export const SETTLE_MS = 5_000;

const CursorSchema = z.looseObject({
  workspace: z.string().min(1),
  afterId: z.coerce.number().int().nonnegative().optional(),
});

export interface AuditTail {
  events: AuditView[];
  /** Pass as `afterId` to the next read; events after it may come again (skip ids already shown). */
  cursor: number;
}

export async function tailAudit(ctx: OperatorContext, input: unknown): Promise<AuditTail> {
  const { workspace, afterId } = parseInput(CursorSchema, input);
  const workspaceId = (await workspaceOrThrow(ctx, workspace)).id;
  // Ids are the log's, not the workspace's: the newest id of any workspace older than the
  // settling time has every smaller id already visible.
  const settledBefore = new Date(ctx.now().getTime() - SETTLE_MS).toISOString();
  const settled = (await ctx.store.audit.query({ until: settledBefore, limit: 1 }))[0]?.id ?? 0;
  if (afterId === undefined) return { events: [], cursor: settled };
  const newest = (await ctx.store.audit.query({ workspaceId, limit: 1 }))[0]?.id ?? 0;
  if (afterId >= newest) return { events: [], cursor: Math.max(afterId, settled) };
  const { afterId: _, ...filters } = input as Record<string, unknown>;
  const events = await queryAudit(ctx, {
    ...filters,
    afterId,
    beforeId: newest + 1,
    order: 'oldest',
    limit: TAIL_LIMIT,
  });
  // A full page: the rest after its last event come next time (still no further than settled).
  const readTo = events.length === TAIL_LIMIT ? (events.at(-1)?.id ?? newest) : newest;
  return { events, cursor: Math.max(afterId, Math.min(readTo, settled)) };
}
