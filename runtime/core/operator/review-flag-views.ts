/**
 * The review flags of a remote connection's pinned tools, prompts, resources
 * and templates (`governance/review-flags.ts`), computed from the pins as
 * they are now, with the workspace's other connections and their tools'
 * names for the rules that look for them. Nothing is stored: the same pins
 * and the same workspace give the same flags.
 */
import type { ReviewContext, ReviewFlag } from '../governance/review-flags.ts';
import { reviewFlags } from '../governance/review-flags.ts';
import { featureReviewItem, toolReviewItem } from '../governance/review-item.ts';
import type { ActionPolicy, Connection } from '../model/governance.ts';
import type { RemoteFeature, RemoteTool } from '../model/remote.ts';
import { REMOTE_MCP_PROVIDER } from '../model/remote.ts';
import type { Store } from '../ports/store.ts';

export interface PinnedItems {
  tools: ReadonlyMap<string, RemoteTool>;
  features: ReadonlyMap<string, RemoteFeature>;
}

/** Each pinned action's flags, by action; absent for one with none (and for a native connection). */
export async function flagsByAction(
  ctx: { store: Store },
  connection: Connection,
  policies: readonly ActionPolicy[],
  pinned: PinnedItems,
): Promise<Map<string, ReviewFlag[]>> {
  const flags = new Map<string, ReviewFlag[]>();
  if (connection.provider !== REMOTE_MCP_PROVIDER) return flags;
  const context = await reviewContextOf(ctx, connection, [...pinned.tools.keys()]);
  for (const policy of policies) {
    const tool = pinned.tools.get(policy.action);
    const feature = pinned.features.get(policy.action);
    const item = tool
      ? toolReviewItem(tool.contract, policy.classification)
      : feature
        ? featureReviewItem(feature, policy.classification)
        : undefined;
    if (item === undefined) continue;
    const found = reviewFlags(item, context);
    if (found.length > 0) flags.set(policy.action, found);
  }
  return flags;
}

async function reviewContextOf(
  ctx: { store: Store },
  connection: Connection,
  tools: readonly string[],
): Promise<ReviewContext> {
  const others = (await ctx.store.connections.list(connection.workspaceId)).filter(
    (c) => c.id !== connection.id,
  );
  const endpoint = await ctx.store.remoteEndpoints.byConnection(connection.id);
  const origin = endpoint ? originOf(endpoint.url) : undefined;
  return {
    own: { connection: connection.name, tools, ...(origin ? { origin } : {}) },
    others: await Promise.all(
      others.map(async (other) => ({
        connection: other.name,
        // A prompt's or resource's key (`prompt:greet`) names no tool.
        tools: (await ctx.store.policies.forConnection(other.id))
          .map((p) => p.action)
          .filter((action) => !action.includes(':')),
      })),
    ),
  };
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
