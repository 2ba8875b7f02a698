/**
 * Pinning a remote MCP connection's tools, prompts, resources and resource
 * templates: discover every page of its lists, hash each item's contract,
 * classify each tool, and bring the action policies in line (new items
 * quarantined, a changed contract blocked with `contract_changed` until
 * reviewed again, a vanished item retired). The report says what changed,
 * field by field, for the review.
 */
import { z } from 'zod';
import { syncPolicies } from '../governance/contract-sync.ts';
import { assertToolNamesFree } from '../governance/tool-name-owners.ts';
import type { UpstreamSession } from '../mcp/client/upstream-client.ts';
import type { UpstreamTarget } from '../mcp/client/upstream-target.ts';
import type { Connection } from '../model/governance.ts';
import type {
  RemoteEndpoint,
  RemoteFeature,
  RemoteFeatureKind,
  RemoteFeatures,
  RemoteTool,
  ReviewedContract,
} from '../model/remote.ts';
import type { Store } from '../ports/store.ts';
import { type ContractChange, contractChanges } from '../sources/remote-mcp/contract-diff.ts';
import { discoverFeatures } from '../sources/remote-mcp/discover-features.ts';
import { discoverTools } from '../sources/remote-mcp/discover-tools.ts';
import { openSession } from '../sources/remote-mcp/open-session.ts';
import { recordFeatures } from '../sources/remote-mcp/record-features.ts';
import { classifyRemoteTool } from '../sources/remote-mcp/remote-classification.ts';
import {
  featureActionOf,
  featureHashOf,
  featureIdOf,
  featureKey,
} from '../sources/remote-mcp/remote-feature-contract.ts';
import { sameFeatures } from '../sources/remote-mcp/remote-features.ts';
import { BEARER_FIELD } from '../sources/remote-mcp/remote-headers.ts';
import { contractHashOf } from '../sources/remote-mcp/remote-tool-contract.ts';
import { remoteActionOf } from '../sources/remote-mcp/remote-tool-source.ts';
import { upstreamTarget } from '../sources/remote-mcp/upstream-targets.ts';
import { connectionOrThrow, endpointOrThrow, remoteOrThrow } from './connection-lookup.ts';
import {
  attempt,
  audit,
  type OperatorContext,
  type PinningContext,
  parseInput,
  workspaceOrThrow,
} from './context.ts';

export interface RefreshReport {
  tools: string[];
  /** The prompts, resources and templates pinned, by the action each is reviewed as (`prompt:greet`). */
  features: string[];
  /** Actions: tools by name, the others by key. */
  added: string[];
  changed: Array<{ tool: string; changes: ContractChange[] }>;
  retired: string[];
  /** Items left out (and lists not read), each with why. */
  problems: string[];
}

export interface Discovered {
  tools: RemoteTool[];
  features: RemoteFeature[];
  /** The kinds whose list could not be read: their pins stay as they were. */
  unread: RemoteFeatureKind[];
  problems: string[];
  ttlMs: number | undefined;
  /** What the server serves beyond tools, when its session said (recorded on the endpoint). */
  served?: RemoteFeatures;
}

/** Network only: the upstream's tools now, as rows to pin. */
export async function discoverPinnable(
  ctx: PinningContext,
  connection: Connection,
  endpoint: RemoteEndpoint,
  target: UpstreamTarget,
  session: UpstreamSession,
): Promise<Discovered> {
  const remote = remoteOrThrow(ctx);
  const found = await discoverTools(remote.client, target, session, remote.validators);
  const features = await discoverFeatures(remote.client, target, session);
  const at = ctx.now().toISOString();
  return {
    problems: [...found.problems, ...features.problems],
    ttlMs: found.ttlMs,
    unread: features.unread,
    features: features.features.map((feature) => ({
      ...feature,
      connectionId: connection.id,
      workspaceId: connection.workspaceId,
      key: featureKey(feature.kind, featureIdOf(feature)),
      contractHash: featureHashOf(feature),
      discoveredAt: at,
      changedFrom: null,
    })),
    tools: found.tools.map((contract) => {
      const { classification, rule } = classifyRemoteTool(
        contract,
        endpoint.classificationOverrides[contract.name],
      );
      return {
        connectionId: connection.id,
        workspaceId: connection.workspaceId,
        name: contract.name,
        contract,
        contractHash: contractHashOf(contract),
        classification,
        classificationRule: rule,
        discoveredAt: at,
        changedFrom: null,
      };
    }),
  };
}

/** In the caller's transaction: the new list pinned, policies synced, the change audited. */
export async function applyPinned(
  ctx: PinningContext,
  tx: Store,
  connection: Connection,
  endpoint: RemoteEndpoint,
  discovered: Discovered,
): Promise<RefreshReport> {
  const before = new Map(
    (await tx.remoteTools.forConnection(connection.id)).map((tool) => [tool.name, tool]),
  );
  const featuresBefore = await tx.remoteFeatures.forConnection(connection.id);
  const beforeFeature = new Map(featuresBefore.map((feature) => [feature.key, feature]));
  const at = ctx.now().toISOString();
  const existing = await tx.policies.forConnection(connection.id);
  const reviewedHashes = new Map(existing.map((policy) => [policy.action, policy.reviewedHash]));
  const pinned = discovered.tools.map((tool) => ({
    ...tool,
    changedFrom: changedFromOf(before.get(tool.name), tool, reviewedHashes.get(tool.name), at),
  }));
  // A kind whose list could not be read keeps its pins (and its policies) as they were.
  const features = [
    ...discovered.features.map(
      (feature) =>
        ({
          ...feature,
          changedFrom: changedFromOf(
            beforeFeature.get(feature.key),
            feature,
            reviewedHashes.get(feature.key),
            at,
          ),
        }) as RemoteFeature,
    ),
    ...featuresBefore.filter((feature) => discovered.unread.includes(feature.kind)),
  ];
  // A tool that would take another's name is refused here, before anything is pinned.
  await assertToolNamesFree(
    ctx,
    tx,
    connection,
    pinned.map((tool) => tool.name),
  );
  const sync = syncPolicies(
    connection,
    [...pinned.map(remoteActionOf), ...features.map(featureActionOf)],
    existing,
    at,
    'quarantine-new',
  );
  await tx.remoteTools.replace(connection, pinned);
  await tx.remoteFeatures.replace(connection, features);
  // The server's ttlMs says when the list goes stale; without one it stays until refreshed.
  const toolsExpireAt =
    discovered.ttlMs === undefined
      ? null
      : new Date(ctx.now().getTime() + Math.max(discovered.ttlMs, 60_000)).toISOString();
  const served = discovered.served ?? endpoint.features;
  if (toolsExpireAt !== endpoint.toolsExpireAt || !sameFeatures(served, endpoint.features))
    await tx.remoteEndpoints.put({ ...endpoint, toolsExpireAt, features: served, updatedAt: at });
  if (sync.changed.length > 0) await tx.policies.putMany(sync.changed);
  const changed = sync.changedContracts.map((tool) => {
    const old = before.get(tool) ?? beforeFeature.get(tool);
    const now =
      discovered.tools.find((candidate) => candidate.name === tool) ??
      features.find((candidate) => candidate.key === tool);
    return { tool, changes: old && now ? contractChanges(old.contract, now.contract) : [] };
  });
  await audit(ctx, tx, {
    action: 'contract.sync',
    workspaceId: connection.workspaceId,
    connectionId: connection.id,
    subject: `added ${sync.added.length}, changed ${sync.changedContracts.length}, retired ${sync.retired.length}`,
  });
  return {
    tools: discovered.tools.map((tool) => tool.name),
    features: features.map((feature) => feature.key),
    added: sync.added,
    changed,
    retired: sync.retired,
    problems: discovered.problems,
  };
}

/** What a pinned tool or feature has that its review compares. */
interface Pinned<C> {
  contract: C;
  contractHash: string;
  changedFrom: ReviewedContract<C> | null;
}

/**
 * The contract a changed tool (or prompt, resource, template) is compared
 * with in review: the one last reviewed, kept from the first change on
 * however many follow before the review; none once it is back at its
 * reviewed contract, and none for one never reviewed (its whole contract is
 * under review).
 */
function changedFromOf<C>(
  old: Pinned<C> | undefined,
  now: Pinned<C>,
  reviewedHash: string | null | undefined,
  at: string,
): ReviewedContract<C> | null {
  if (!old || now.contractHash === reviewedHash) return null;
  // Still measured against the reviewed contract (a riskier class cleared the reviewed hash).
  if (old.changedFrom && (reviewedHash == null || old.changedFrom.contractHash === reviewedHash))
    return old.changedFrom;
  if (old.contractHash === now.contractHash || old.contractHash !== reviewedHash) return null;
  return { contract: old.contract, contractHash: old.contractHash, since: at };
}

const RefreshSchema = z.strictObject({
  workspace: z.string().min(1),
  connection: z.string().min(1),
});

/** `portcullis refresh <connection>`: the tool list discovered again, with what changed. */
export async function refreshRemote(ctx: OperatorContext, input: unknown): Promise<RefreshReport> {
  return attempt(ctx, 'connection.refresh', input, async () => {
    const parsed = parseInput(RefreshSchema, input);
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    const connection = await connectionOrThrow(ctx, workspace.id, parsed.connection);
    const endpoint = await endpointOrThrow(ctx, connection);
    const report = await refreshConnection(ctx, connection, endpoint);
    return report;
  });
}

/** Discovers and pins again (an operator's refresh, a `list_changed`, an expired `ttlMs`). */
export async function refreshConnection(
  ctx: PinningContext,
  connection: Connection,
  endpoint: RemoteEndpoint,
): Promise<RefreshReport> {
  const remote = remoteOrThrow(ctx);
  const target = upstreamTarget(endpoint, await sharedCredentialOf(ctx, connection, endpoint));
  const session = await openSession(remote.client, target, endpoint);
  const discovered = await discoverPinnable(ctx, connection, endpoint, target, session).finally(
    () => remote.client.close(target, session).catch(() => {}),
  );
  // What it serves besides is recorded too (a 2026-07-28 server says it in `server/discover`).
  const capabilities =
    session.capabilities ??
    (session.era === 'modern'
      ? (await remote.client.discover(target).catch(() => undefined))?.capabilities
      : undefined);
  if (capabilities !== undefined)
    discovered.served = await recordFeatures(remote.client, target, endpoint, capabilities);
  return ctx.store.transaction((tx) => applyPinned(ctx, tx, connection, endpoint, discovered));
}

/**
 * The background refresh of a connection whose server said a list changed:
 * discovered and pinned again while it is an active remote connection out
 * of draft; says whether it was.
 */
export async function refreshListed(ctx: PinningContext, connectionId: string): Promise<boolean> {
  const endpoint = await ctx.store.remoteEndpoints.byConnection(connectionId);
  if (!endpoint || endpoint.draft !== null) return false;
  const connection = await ctx.store.connections.byId(endpoint.workspaceId, connectionId);
  if (connection?.status !== 'active') return false;
  await refreshConnection(ctx, connection, endpoint);
  return true;
}

/** The connection's shared credential: its sealed key or headers, or a signed-in one's access token. */
export async function sharedCredentialOf(
  ctx: PinningContext,
  connection: Connection,
  endpoint: RemoteEndpoint,
): Promise<Record<string, string> | undefined> {
  const tokens = ctx.remote?.tokens;
  if (endpoint.authKind !== 'oauth' || !tokens)
    return ctx.vault.open(await ctx.store.credentials.forConnection(connection.id, null));
  const token = await tokens.accessToken(endpoint, {
    workspaceId: connection.workspaceId,
    connectionId: connection.id,
    connectionName: connection.name,
    agentId: null,
  });
  return { [BEARER_FIELD]: token };
}
