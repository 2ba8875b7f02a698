/**
 * A workspace's connections as the console's list shows them, and one of
 * them as its review page heads it: each one's view (`connection-views.ts`:
 * kind, the unverified label and host), its kind in a word, how many of its
 * actions wait for review, the last error the audit log recorded for it, and
 * for a remote server whether its MCP Apps are on (connection-apps.ts).
 */
import { z } from 'zod';
import { appsTurnedOff } from '../governance/decide.ts';
import { reviewStateOf } from '../governance/review-state.ts';
import { REMOTE_MCP_PROVIDER } from '../model/remote.ts';
import { connectionOrThrow } from './connection-lookup.ts';
import { type ConnectionView, connectionViewOf, connectionViews } from './connection-views.ts';
import { type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';

export interface ConnectionSummary {
  connection: ConnectionView;
  /** `native` (a catalog provider), `curated` (a remote a curated definition names) or `remote`. */
  kind: 'native' | 'curated' | 'remote';
  /** Actions never reviewed, or changed since their review. */
  awaitingReview: number;
  lastError?: { at: string; reason: string | null; action: string };
  /** A remote server's MCP Apps: `off` once an operator turned them off (`portcullis apps`). */
  apps?: 'on' | 'off';
}

export async function connectionSummaries(
  ctx: OperatorContext,
  input: unknown,
): Promise<ConnectionSummary[]> {
  const views = await connectionViews(ctx, input);
  return Promise.all(views.map((view) => summaryOf(ctx, view)));
}

/** The connection the input names (by name or id); `not_found` offers the nearest name. */
export async function connectionSummary(
  ctx: OperatorContext,
  input: unknown,
): Promise<ConnectionSummary> {
  const { workspace, connection } = parseInput(
    z.strictObject({ workspace: z.string().min(1), connection: z.string().min(1) }),
    input,
  );
  const { id } = await workspaceOrThrow(ctx, workspace);
  const found = await connectionOrThrow(ctx, id, connection);
  return summaryOf(ctx, await connectionViewOf(ctx, found));
}

async function summaryOf(
  ctx: OperatorContext,
  connection: ConnectionView,
): Promise<ConnectionSummary> {
  const [policies, errors] = await Promise.all([
    ctx.store.policies.forConnection(connection.id),
    ctx.store.audit.query({
      workspaceId: connection.workspaceId,
      connectionId: connection.id,
      outcome: 'error',
      limit: 1,
    }),
  ]);
  const awaitingReview = policies.filter((p) => {
    const review = reviewStateOf(p);
    return review === 'new' || review === 'changed';
  }).length;
  const last = errors[0];
  return {
    connection,
    kind:
      connection.provider !== REMOTE_MCP_PROVIDER
        ? 'native'
        : connection.remote?.verified
          ? 'curated'
          : 'remote',
    awaitingReview,
    ...(connection.provider === REMOTE_MCP_PROVIDER
      ? { apps: appsTurnedOff(connection) ? ('off' as const) : ('on' as const) }
      : {}),
    ...(last ? { lastError: { at: last.at, reason: last.reason, action: last.action } } : {}),
  };
}
