/**
 * Groups at the company's IdP become roles and grants (`portcullis idp map
 * <idp> --group <g> --role operator|viewer` or `--grant <connection>
 * [--scope reads|all]`, `idp unmap`, `idp maps`), applied at each member's
 * sign-in (`identity/oauth-server/idp-groups.ts`); `idp origins <member>`
 * says where each of a member's roles and grants came from.
 */
import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import { newId } from '../governance/keys.ts';
import type { IdpSync } from '../identity/oauth-server/idp-sync.ts';
import type { GroupMapping } from '../model/identity.ts';
import type { Member } from '../model/oauth.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';
import { providerOrThrow } from './identity-providers.ts';
import { memberOrThrow } from './members.ts';
import { NameSchema } from './names.ts';

const GroupSchema = z.string().min(1).max(256);
const MapSchema = z.strictObject({
  workspace: z.string().min(1),
  provider: z.string().min(1),
  group: GroupSchema,
  role: z.enum(['viewer', 'operator']).optional(),
  connection: NameSchema.optional(),
  scope: z.enum(['reads', 'all']).default('reads'),
});

export interface GroupMappingView {
  provider: string;
  group: string;
  role: string | null;
  connection: string | null;
  scope: string;
}

export async function mapGroup(ctx: OperatorContext, input: unknown): Promise<GroupMappingView> {
  return attempt(ctx, 'idp.map', input, async () => {
    const parsed = parseInput(MapSchema, input);
    if ((parsed.role === undefined) === (parsed.connection === undefined))
      throw new GatewayError('invalid_input', 'give one of --role or --grant', { field: 'role' });
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    const provider = await providerOrThrow(ctx, workspace.id, parsed.provider);
    const connection =
      parsed.connection === undefined
        ? undefined
        : await ctx.store.connections.byName(workspace.id, parsed.connection);
    if (parsed.connection !== undefined && !connection)
      throw new GatewayError('not_found', `no connection ${parsed.connection} in this workspace`, {
        field: 'connection',
      });
    const mapping: GroupMapping = {
      id: newId(),
      providerId: provider.id,
      workspaceId: workspace.id,
      group: parsed.group,
      role: parsed.role ?? null,
      connectionId: connection?.id ?? null,
      scope: parsed.scope,
      createdAt: ctx.now().toISOString(),
    };
    const same = (await ctx.store.identity.mappings(provider.id)).find(
      (m) =>
        m.group === mapping.group &&
        m.role === mapping.role &&
        m.connectionId === mapping.connectionId,
    );
    if (same)
      throw new GatewayError('conflict', 'this group is mapped so already', { field: 'group' });
    await ctx.store.transaction(async (tx) => {
      await tx.identity.addMapping(mapping);
      await audit(ctx, tx, {
        action: 'idp.map',
        workspaceId: workspace.id,
        subject: `${provider.name}:${mapping.role ?? parsed.connection}`,
      });
    });
    return viewOf(provider.name, mapping, parsed.connection ?? null);
  });
}

export async function unmapGroup(ctx: OperatorContext, input: unknown): Promise<GroupMappingView> {
  return attempt(ctx, 'idp.unmap', input, async () => {
    const parsed = parseInput(MapSchema, input);
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    const provider = await providerOrThrow(ctx, workspace.id, parsed.provider);
    const connection =
      parsed.connection === undefined
        ? undefined
        : await ctx.store.connections.byName(workspace.id, parsed.connection);
    const found = (await ctx.store.identity.mappings(provider.id)).find(
      (m) =>
        m.group === parsed.group &&
        (parsed.role === undefined || m.role === parsed.role) &&
        (parsed.connection === undefined || m.connectionId === connection?.id),
    );
    if (!found)
      throw new GatewayError('not_found', 'no such mapping of this group', { field: 'group' });
    await ctx.store.transaction(async (tx) => {
      await tx.identity.removeMapping(found.id);
      await audit(ctx, tx, {
        action: 'idp.unmap',
        workspaceId: workspace.id,
        subject: `${provider.name}:${found.role ?? parsed.connection}`,
      });
    });
    return viewOf(provider.name, found, parsed.connection ?? null);
  });
}

export async function listMappings(
  ctx: OperatorContext,
  input: unknown,
): Promise<GroupMappingView[]> {
  const { workspace: ref, provider: name } = parseInput(
    z.strictObject({ workspace: z.string().min(1), provider: z.string().min(1) }),
    input,
  );
  const workspace = await workspaceOrThrow(ctx, ref);
  const provider = await providerOrThrow(ctx, workspace.id, name);
  const names = new Map(
    (await ctx.store.connections.list(workspace.id)).map((c) => [c.id, c.name] as const),
  );
  return (await ctx.store.identity.mappings(provider.id)).map((m) =>
    viewOf(provider.name, m, m.connectionId === null ? null : (names.get(m.connectionId) ?? null)),
  );
}

export interface MemberOrigin {
  what: 'role' | 'grant';
  /** The role, or the connection's name. */
  name: string;
  /** `operator` (set by a person), or `idp:<provider>:<group>`. */
  from: string;
}

/** Where each of a member's roles and grants came from: an operator, or a group at an IdP. */
export async function memberOrigins(ctx: OperatorContext, input: unknown): Promise<MemberOrigin[]> {
  const { workspace: ref, name } = parseInput(
    z.strictObject({ workspace: z.string().min(1), name: z.string().min(1) }),
    input,
  );
  const workspace = await workspaceOrThrow(ctx, ref);
  const member = await memberOrThrow(ctx, workspace.id, name);
  const effects = await ctx.store.identity.effectsOf(member.id);
  const names = new Map(
    (await ctx.store.connections.list(workspace.id)).map((c) => [c.id, c.name] as const),
  );
  const byGroup = (kind: 'role' | 'grant', target: string) =>
    effects.find((e) => e.kind === kind && e.target === target);
  const roleEffect = byGroup('role', member.role);
  const origins: MemberOrigin[] = [
    {
      what: 'role',
      name: member.role,
      from: roleEffect ? `idp:${roleEffect.providerName}:${roleEffect.group}` : 'operator',
    },
  ];
  for (const grant of await ctx.store.memberGrants.forMember(member.id)) {
    const effect = byGroup('grant', grant.connectionId);
    origins.push({
      what: 'grant',
      name: names.get(grant.connectionId) ?? grant.connectionId,
      from:
        effect && effect.grantId === grant.id
          ? `idp:${effect.providerName}:${effect.group}`
          : 'operator',
    });
  }
  return origins;
}

/**
 * The console's view: for each member something was given by a group, where
 * their role and each grant came from (the members without are left out).
 */
export async function workspaceOrigins(
  ctx: OperatorContext,
  input: unknown,
): Promise<Record<string, MemberOrigin[]>> {
  const { workspace: ref } = parseInput(z.strictObject({ workspace: z.string().min(1) }), input);
  const workspace = await workspaceOrThrow(ctx, ref);
  const shown: Record<string, MemberOrigin[]> = {};
  for (const member of await ctx.store.oauth.members.list(workspace.id)) {
    if ((await ctx.store.identity.effectsOf(member.id)).length === 0) continue;
    shown[member.name] = await memberOrigins(ctx, { workspace: workspace.id, name: member.name });
  }
  return shown;
}

function viewOf(
  provider: string,
  mapping: GroupMapping,
  connection: string | null,
): GroupMappingView {
  return {
    provider,
    group: mapping.group,
    role: mapping.role,
    connection,
    scope: mapping.scope,
  };
}

/**
 * Reads a member's groups again at their IdP now (`idp sync`), by the
 * authorization server's `sync`; audited, with what came of each provider.
 */
export async function syncMember(
  ctx: OperatorContext,
  input: unknown,
  sync: (member: Member) => Promise<IdpSync[]>,
): Promise<Array<{ provider: string; outcome: string; role: string }>> {
  return attempt(ctx, 'idp.sync', input, async () => {
    const { workspace: ref, name } = parseInput(
      z.strictObject({ workspace: z.string().min(1), name: z.string().min(1) }),
      input,
    );
    const workspace = await workspaceOrThrow(ctx, ref);
    const member = await memberOrThrow(ctx, workspace.id, name);
    const results = await sync(member);
    await audit(ctx, ctx.store, {
      action: 'idp.sync',
      workspaceId: workspace.id,
      subject: `${member.id}:${results.map((r) => `${r.provider}=${r.outcome}`).join(',')}`,
    });
    return results.map((r) => ({ provider: r.provider, outcome: r.outcome, role: r.member.role }));
  });
}
