/**
 * What every operator verb works with. The `portcullis` command and the admin
 * HTTP API call the same verbs with the same inputs, so they cannot drift.
 */
import type { z } from 'zod';
import { GatewayError, REASONS } from '../base/errors.ts';
import { didYouMean } from '../base/nearest-word.ts';
import type { CatalogSet } from '../catalog/catalog-set.ts';
import { auditEvent } from '../governance/audit-event.ts';
import type { ReviewFlaggedMode } from '../governance/review-flags.ts';
import type { ToolSources } from '../governance/tool-source.ts';
import type { UpstreamSignIn } from '../identity/oauth-client/upstream-sign-in.ts';
import type { UpstreamTokens } from '../identity/oauth-client/upstream-tokens.ts';
import type { NewAuditEvent, Workspace } from '../model/governance.ts';
import type { StepUpForm } from '../model/oauth.ts';
import type { Store } from '../ports/store.ts';
import type { Executors } from '../sources/executor.ts';
import type { RemoteDiscovery, RemoteMcp } from '../sources/remote-mcp/remote-mcp.ts';
import type { CredentialVault } from '../vault/credential-vault.ts';
import { inputProblem } from './input-issues.ts';

export interface KeyLocation {
  dataDir: string;
  /** Set when the key comes from `PORTCULLIS_MASTER_KEY`, which cannot be rewritten. */
  fromEnvironment: boolean;
}

export interface OperatorContext {
  store: Store;
  catalogs: CatalogSet;
  vault: CredentialVault;
  /** Each connection's tools, and the executors that call them (the verify read). */
  toolSources: ToolSources;
  executors: Executors;
  /** Connecting, probing and refreshing remote MCP servers (absent where no outbound client runs). */
  remote?: RemoteMcp;
  /** Signing in to remote MCP servers (absent where no outbound client runs). */
  upstreamSignIn?: UpstreamSignIn;
  /** The tokens calls to `oauth` connections carry (absent where no outbound client runs). */
  upstreamTokens?: UpstreamTokens;
  /** Where the master key lives. */
  keys: KeyLocation;
  /** Who acts: `admin:<token id>`, `cli`, or `member:<member id>` (the console; audited as that member). */
  actor: string;
  now: () => Date;
  /** Tells every replica that governance changed (agents' tool lists may have): the surface calls it after a verb. */
  changed?: () => void;
  /** `block`: a flagged remote item is approved only with force (`PORTCULLIS_REVIEW_FLAGGED`); default `show`. */
  reviewFlagged?: ReviewFlaggedMode;
  /** Calls held for approval: how long an approved call has to run, whether a member approves their own (default refuse). */
  approvals?: {
    ttlMs: number;
    self: 'refuse' | 'allow';
    /** Told of each approval approved: every replica is told, and the one that claims it runs a task client's call. */
    approved?: (id: string) => void;
  };
  /** `PORTCULLIS_OAUTH_STEP_UP`: the step-up form of a client that chose none and is not ChatGPT; default `http`. */
  oauthStepUp?: StepUpForm;
}

/**
 * What discovering and pinning a remote connection's lists needs: an
 * operator's verb has it, and so has the background refresh (a list change
 * heard, a list whose time ran out), which ends no caller's session.
 */
export type PinningContext = Pick<
  OperatorContext,
  'store' | 'vault' | 'toolSources' | 'actor' | 'now'
> & { remote?: RemoteDiscovery | undefined };

/**
 * Parses an operator's input; the first problem names the field to change,
 * what it takes and the nearest valid word (see `inputProblem`).
 */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  const { field, text } = inputProblem(
    parsed.error.issues[0]!,
    input,
    shape === undefined ? [] : Object.keys(shape),
  );
  throw new GatewayError('invalid_input', `${field}: ${text}`, { field });
}

export async function workspaceOrThrow(ctx: OperatorContext, ref: string): Promise<Workspace> {
  const workspace =
    (await ctx.store.workspaces.byName(ref)) ?? (await ctx.store.workspaces.byId(ref));
  if (!workspace) {
    const names = (await ctx.store.workspaces.list()).map((w) => w.name);
    throw new GatewayError('not_found', `no workspace ${ref}${didYouMean(ref, names)}`, {
      field: 'workspace',
    });
  }
  return workspace;
}

export async function audit(
  ctx: Pick<OperatorContext, 'actor' | 'now'>,
  store: Store,
  event: Pick<NewAuditEvent, 'action' | 'workspaceId'> & Partial<NewAuditEvent>,
): Promise<void> {
  await store.audit.append(
    auditEvent({
      at: ctx.now().toISOString(),
      ...actorOf(ctx.actor),
      decision: 'allowed',
      outcome: 'ok',
      ...event,
    }),
  );
}

/** A member acting in the console is audited as that member; anyone else as an operator. */
function actorOf(actor: string): Pick<NewAuditEvent, 'actorKind' | 'actorId'> {
  return actor.startsWith(MEMBER_ACTOR)
    ? { actorKind: 'member', actorId: actor.slice(MEMBER_ACTOR.length) }
    : { actorKind: 'operator', actorId: actor };
}

/** The prefix of a member's actor (`member:<id>`). */
export const MEMBER_ACTOR = 'member:';

/**
 * Runs an operator verb that changes something; when it is refused or fails,
 * leaves an audit event saying so (a connect whose verification failed, a
 * grant for an agent that does not exist), as a success leaves its own. The
 * event names the workspace and connection the input names, if they exist,
 * and what was acted on; never the input's credential.
 */
export async function attempt<T>(
  ctx: OperatorContext,
  action: string,
  input: unknown,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    await auditFailure(ctx, action, input, error).catch(() => {
      // The original failure is what the operator must see; a store that
      // cannot take the event either has already said why.
    });
    throw error;
  }
}

async function auditFailure(
  ctx: OperatorContext,
  action: string,
  input: unknown,
  error: unknown,
): Promise<void> {
  const code = error instanceof GatewayError ? error.code : 'internal';
  const fields = (typeof input === 'object' && input !== null ? input : {}) as Record<
    string,
    unknown
  >;
  const text = (name: string) =>
    typeof fields[name] === 'string' ? (fields[name] as string).slice(0, 128) : undefined;
  const workspaceRef = text('workspace');
  const workspace = workspaceRef
    ? ((await ctx.store.workspaces.byName(workspaceRef)) ??
      (await ctx.store.workspaces.byId(workspaceRef)))
    : undefined;
  const connectionRef = text('connection');
  const connection =
    workspace && connectionRef
      ? ((await ctx.store.connections.byName(workspace.id, connectionRef)) ??
        (await ctx.store.connections.byId(workspace.id, connectionRef)))
      : undefined;
  const denied = REASONS[code].audited === 'denied';
  await audit(ctx, ctx.store, {
    action,
    workspaceId: workspace?.id ?? null,
    connectionId: connection?.id ?? null,
    subject:
      text('agent') ?? text('name') ?? text('provider') ?? text('id') ?? connectionRef ?? null,
    decision: denied ? 'denied' : 'allowed',
    outcome: denied ? null : 'error',
    reason: code,
  });
}
