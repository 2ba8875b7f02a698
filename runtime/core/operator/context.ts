/**
 * What every operator verb works with. The `portcullis` command and the admin
 * HTTP API call the same verbs with the same inputs, so they cannot drift.
 */
import type { z } from 'zod';
import type { CatalogSet } from '../catalog/catalog-set.ts';
import { GatewayError } from '../errors.ts';
import type { Executors } from '../execute/executor.ts';
import { auditEvent } from '../governance/audit-event.ts';
import type { NewAuditEvent, Workspace } from '../governance/model.ts';
import type { Store } from '../store/store.ts';
import type { ToolSources } from '../tools/tool-source.ts';
import type { CredentialVault } from '../vault/credential-vault.ts';

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
  /** Where the master key lives. */
  keys: KeyLocation;
  /** Who acts: an admin token id, or `cli`. */
  actor: string;
  now: () => Date;
  /** Tells every replica that governance changed (agents' tool lists may have): the surface calls it after a verb. */
  changed?: () => void;
}

/** Parses an operator's input; the first problem names the field to change. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.map(String).join('.') || 'input';
  throw new GatewayError('invalid_input', `${field}: ${issue.message}`, { field });
}

export async function workspaceOrThrow(ctx: OperatorContext, ref: string): Promise<Workspace> {
  const workspace =
    (await ctx.store.workspaces.byName(ref)) ?? (await ctx.store.workspaces.byId(ref));
  if (!workspace)
    throw new GatewayError('not_found', `no workspace ${ref}`, { field: 'workspace' });
  return workspace;
}

export async function audit(
  ctx: OperatorContext,
  store: Store,
  event: Pick<NewAuditEvent, 'action' | 'workspaceId'> & Partial<NewAuditEvent>,
): Promise<void> {
  await store.audit.append(
    auditEvent({
      at: ctx.now().toISOString(),
      actorKind: 'operator',
      actorId: ctx.actor,
      decision: 'allowed',
      outcome: 'ok',
      ...event,
    }),
  );
}
