/**
 * A workspace's connections as the console's list shows them: each one's
 * view (`connection-views.ts`: kind, the unverified label and host), its
 * kind in a word, how many of its actions wait for review, and the last
 * error the audit log recorded for it.
 */
import { reviewStateOf } from '../governance/review-state.ts';
import { REMOTE_MCP_PROVIDER } from '../model/remote.ts';
import { type ConnectionView, connectionViews } from './connection-views.ts';
import type { OperatorContext } from './context.ts';

export interface ConnectionSummary {
  connection: ConnectionView;
  /** `native` (a catalog provider), `curated` (a remote a curated definition names) or `remote`. */
  kind: 'native' | 'curated' | 'remote';
  /** Actions never reviewed, or changed since their review. */
  awaitingReview: number;
  lastError?: { at: string; reason: string | null; action: string };
}

export async function connectionSummaries(
  ctx: OperatorContext,
  input: unknown,
): Promise<ConnectionSummary[]> {
  const views = await connectionViews(ctx, input);
  return Promise.all(
    views.map(async (connection) => {
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
        ...(last ? { lastError: { at: last.at, reason: last.reason, action: last.action } } : {}),
      };
    }),
  );
}
