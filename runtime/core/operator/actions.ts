/**
 * An operator's view of a connection's actions (a remote connection's
 * prompts, resources and templates among them) and the verbs that change their
 * policy. Enabling an action approves its current contract. Reviewing
 * approves the current contract without enabling anything new: a quarantined
 * action takes its class default (reads on, writes and destructive off).
 * A remote item's view carries its review flags (`review-flag-views.ts`);
 * with `PORTCULLIS_REVIEW_FLAGGED=block`, approving a flagged item (review or
 * enable of a contract not yet reviewed) takes `force`.
 */

import { z } from 'zod';
import type { Classification } from '../../../generated/catalog-format.ts';
import { GatewayError } from '../base/errors.ts';
import { classDefault } from '../governance/contract-sync.ts';
import type { ReviewFlag } from '../governance/review-flags.ts';
import { type ReviewState, reviewStateOf } from '../governance/review-state.ts';
import { assertToolNamesFree } from '../governance/tool-name-owners.ts';
import type { ActionPolicy, Connection, PolicyState } from '../model/governance.ts';
import type { AppContract } from '../model/remote.ts';
import { REMOTE_MCP_PROVIDER, type RemoteFeatureKind } from '../model/remote.ts';
import { type ContractChange, contractChanges } from '../sources/remote-mcp/contract-diff.ts';
import { featureOfKey } from '../sources/remote-mcp/remote-feature-contract.ts';
import { actionNamesOf, actionOrThrow } from './action-names.ts';
import { connectionOrThrow } from './connection-lookup.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';
import { flagsByAction } from './review-flag-views.ts';

export interface ActionView {
  /** A tool's name, or a prompt's, resource's or template's key (`prompt:greet`). */
  action: string;
  /** The name a listing prints and every command takes (`action-names.ts`). */
  name: string;
  /** What an agent sees it as on `/mcp` (a tool, a prompt, a resource or template URI). */
  tool: string;
  /** Set for a remote connection's prompt, resource or template (not a tool). */
  kind?: RemoteFeatureKind;
  classification: Classification;
  state: PolicyState;
  /** Never reviewed (`new`), reviewed once and changed since, retired, or `reviewed`. */
  review: ReviewState;
  /** `review` is `changed`: calls are blocked until it is reviewed again. */
  contractChanged: boolean;
  title: string;
  /**
   * A remote tool whose contract changed: what changed since the contract
   * last reviewed (texts word by word, schemas and annotations by JSON
   * pointer), and since when, however the change was found.
   */
  changes?: ContractChange[];
  changedSince?: string;
  /**
   * A remote item's review flags, from its current pinned text: each names
   * its rule, the field and an excerpt of the server's text (shown inert).
   * Absent when none fired.
   */
  flags?: ReviewFlag[];
  /**
   * An MCP App's page (a `ui://` resource), as pinned: the origins its csp
   * lets it reach, by directive, the permissions it asks for, its sandbox
   * domain and the sha256 of its content. Absent for anything else.
   */
  app?: AppContract;
}

const ConnectionRefSchema = z.strictObject({
  workspace: z.string().min(1),
  connection: z.string().min(1),
});

export async function listActions(ctx: OperatorContext, input: unknown): Promise<ActionView[]> {
  const ref = parseInput(ConnectionRefSchema, input);
  const workspace = await workspaceOrThrow(ctx, ref.workspace);
  return actionViews(ctx, await connectionOrThrow(ctx, workspace.id, ref.connection));
}

/** The connection's actions as stored now, in action-name order (the store's). */
async function actionViews(ctx: OperatorContext, connection: Connection): Promise<ActionView[]> {
  const provider = ctx.catalogs.get(connection.provider);
  const policies = await ctx.store.policies.forConnection(connection.id);
  const isRemote = connection.provider === REMOTE_MCP_PROVIDER;
  const remoteTools = isRemote
    ? new Map((await ctx.store.remoteTools.forConnection(connection.id)).map((t) => [t.name, t]))
    : undefined;
  const features = isRemote
    ? new Map((await ctx.store.remoteFeatures.forConnection(connection.id)).map((f) => [f.key, f]))
    : undefined;
  const flags = await flagsByAction(ctx, connection, policies, {
    tools: remoteTools ?? new Map(),
    features: features ?? new Map(),
  });
  return policies.map((policy) => {
    const review = reviewStateOf(policy);
    const contractChanged = review === 'changed';
    const feature = features?.get(policy.action);
    // A retired prompt or resource is pinned no more: its key still says what it was.
    const keyed = isRemote ? featureOfKey(policy.action) : undefined;
    const remote = remoteTools?.get(policy.action) ?? feature;
    const changedFrom = contractChanged ? remote?.changedFrom : undefined;
    const names = actionNamesOf(connection, policy.action);
    return {
      action: policy.action,
      name: names.listed,
      tool: names.onMcp,
      ...(keyed ? { kind: keyed.kind } : {}),
      classification: policy.classification,
      state: policy.state,
      review,
      contractChanged,
      title:
        provider?.actions.get(policy.action)?.title ??
        feature?.contract.title ??
        feature?.contract.name ??
        policy.action,
      ...(remote && changedFrom
        ? {
            changes: contractChanges(changedFrom.contract, remote.contract),
            changedSince: changedFrom.since,
          }
        : {}),
      ...(flags.has(policy.action) ? { flags: flags.get(policy.action)! } : {}),
      ...(feature?.kind === 'resource' && feature.contract.app
        ? { app: feature.contract.app }
        : {}),
    };
  });
}

export const ChangeActionsSchema = z
  .strictObject({
    workspace: z.string().min(1),
    connection: z.string().min(1),
    /** Action names; or select by `classification`, or `all`. */
    actions: z.array(z.string().min(1)).optional(),
    classification: z.enum(['read', 'write', 'destructive']).optional(),
    all: z.boolean().optional(),
    /** Approve flagged items all the same, where PORTCULLIS_REVIEW_FLAGGED=block holds them. */
    force: z.boolean().optional(),
  })
  .refine((v) => (v.actions?.length ? 1 : 0) + (v.classification ? 1 : 0) + (v.all ? 1 : 0) === 1, {
    message: 'name the actions, or a classification, or all (exactly one)',
    path: ['actions'],
  });

/** `ask`: on, each call held for an approver (docs/approvals.md). */
export type ActionVerb = 'enable' | 'ask' | 'disable' | 'review';

export async function changeActions(
  ctx: OperatorContext,
  verb: ActionVerb,
  input: unknown,
): Promise<ActionView[]> {
  return attempt(ctx, `action.${verb}`, input, async () => {
    const parsed = parseInput(ChangeActionsSchema, input);
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    const connection = await connectionOrThrow(ctx, workspace.id, parsed.connection);
    const policies = await ctx.store.policies.forConnection(connection.id);
    const byName = new Map(policies.map((p) => [p.action, p]));
    // Named actions must exist (a retired one is a conflict below); a class or `all`
    // selects the live ones.
    const chosen = parsed.actions?.length
      ? parsed.actions.map(
          (name) => byName.get(actionOrThrow(connection, [...byName.keys()], name, 'actions'))!,
        )
      : policies.filter(
          (p) =>
            p.state !== 'retired' && (parsed.all || p.classification === parsed.classification),
        );
    const approving = verb === 'disable' ? [] : chosen.filter(approves);
    const flagged = await flaggedAmong(ctx, connection, approving);
    if (flagged.length > 0 && ctx.reviewFlagged === 'block' && !parsed.force) {
      throw new GatewayError(
        'review_flagged',
        `${flagged.map(({ action, flags }) => `${actionNamesOf(connection, action).listed} (${[...new Set(flags.map((f) => f.rule))].join(', ')})`).join('; ')}: flagged for review; read the flags (portcullis connection review ${connection.name}), then approve with --force`,
        { field: 'force' },
      );
    }
    const forced = parsed.force && flagged.length > 0;
    const at = ctx.now().toISOString();
    await ctx.store.transaction(async (tx) => {
      // Approving puts tools in service: none of them may share a name with another.
      if (verb !== 'disable') await assertToolNamesFree(ctx, tx, connection);
      for (const policy of chosen) {
        if (policy.state === 'retired') {
          throw new GatewayError(
            'conflict',
            `${policy.action} is retired: it is no longer in the catalog`,
            { field: 'actions' },
          );
        }
        await tx.policies.setState(connection.id, policy.action, {
          ...nextPolicy(verb, policy),
          updatedAt: at,
        });
      }
      await audit(ctx, tx, {
        action: `action.${verb}`,
        workspaceId: workspace.id,
        connectionId: connection.id,
        subject: `${chosen.map((p) => p.action).join(',')}${forced ? `; approved past their flags: ${flagged.map((f) => f.action).join(',')}` : ''}`,
      });
    });
    const changed = new Set(chosen.map((p) => p.action));
    return (await actionViews(ctx, connection)).filter((view) => changed.has(view.action));
  });
}

/** Whether a verb on this policy approves a contract not reviewed yet (new or changed). */
function approves(policy: ActionPolicy): boolean {
  const review = reviewStateOf(policy);
  return review === 'new' || review === 'changed';
}

async function flaggedAmong(
  ctx: OperatorContext,
  connection: Connection,
  policies: readonly ActionPolicy[],
): Promise<Array<{ action: string; flags: ReviewFlag[] }>> {
  if (policies.length === 0 || connection.provider !== REMOTE_MCP_PROVIDER) return [];
  const [tools, features] = await Promise.all([
    ctx.store.remoteTools.forConnection(connection.id),
    ctx.store.remoteFeatures.forConnection(connection.id),
  ]);
  const flags = await flagsByAction(ctx, connection, policies, {
    tools: new Map(tools.map((t) => [t.name, t])),
    features: new Map(features.map((f) => [f.key, f])),
  });
  return policies.flatMap((p) => {
    const found = flags.get(p.action);
    return found ? [{ action: p.action, flags: found }] : [];
  });
}

function nextPolicy(
  verb: ActionVerb,
  policy: ActionPolicy,
): { state: PolicyState; reviewedHash?: string } {
  switch (verb) {
    case 'enable':
      return { state: 'enabled', reviewedHash: policy.currentHash };
    case 'ask':
      return { state: 'ask', reviewedHash: policy.currentHash };
    case 'disable':
      return { state: 'disabled' };
    case 'review':
      return {
        state: policy.state === 'quarantined' ? classDefault(policy.classification) : policy.state,
        reviewedHash: policy.currentHash,
      };
  }
}
