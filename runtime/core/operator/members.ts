/**
 * Members: the people who sign in on the authorization server's consent
 * page. Names are unique across workspaces (a person signs in by name
 * alone); passwords are hashed with scrypt and never shown or logged.
 * Removing a member ends everything it authorized: its consents, their token
 * families, and the agents they stood for.
 */
import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import { didYouMean } from '../base/nearest-word.ts';
import { newId } from '../governance/keys.ts';
import { hashPassword, passwordProblem } from '../identity/oauth-server/passwords.ts';
import { MEMBER_ROLES, type Member } from '../model/oauth.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';
import { NameSchema } from './names.ts';

const MemberInputSchema = z.strictObject({
  workspace: z.string().min(1),
  name: NameSchema,
  password: z.string(),
});
const RoleSchema = z.enum(MEMBER_ROLES);
const NewMemberSchema = MemberInputSchema.extend({ role: RoleSchema.default('member') });
const MemberRefSchema = z.strictObject({ workspace: z.string().min(1), name: z.string().min(1) });
const MemberRoleSchema = MemberRefSchema.extend({ role: RoleSchema });

export async function addMember(ctx: OperatorContext, input: unknown): Promise<Member> {
  return attempt(ctx, 'member.add', withoutPassword(input), async () => {
    const { workspace: ref, name, password, role } = parseInput(NewMemberSchema, input);
    const workspace = await workspaceOrThrow(ctx, ref);
    refuseWeak(password);
    const at = ctx.now().toISOString();
    const member: Member = {
      id: newId(),
      workspaceId: workspace.id,
      name,
      role,
      createdAt: at,
      updatedAt: at,
    };
    const hash = await hashPassword(password);
    await ctx.store.transaction(async (tx) => {
      await tx.oauth.members.create(member, hash);
      await audit(ctx, tx, { action: 'member.add', workspaceId: workspace.id, subject: member.id });
    });
    return member;
  });
}

export async function listMembers(ctx: OperatorContext, input: unknown): Promise<Member[]> {
  const { workspace: ref } = parseInput(z.strictObject({ workspace: z.string().min(1) }), input);
  return ctx.store.oauth.members.list((await workspaceOrThrow(ctx, ref)).id);
}

export async function setMemberPassword(ctx: OperatorContext, input: unknown): Promise<Member> {
  return attempt(ctx, 'member.password', withoutPassword(input), async () => {
    const { workspace: ref, name, password } = parseInput(MemberInputSchema, input);
    const workspace = await workspaceOrThrow(ctx, ref);
    const member = await memberOrThrow(ctx, workspace.id, name);
    refuseWeak(password);
    const at = ctx.now().toISOString();
    const hash = await hashPassword(password);
    await ctx.store.transaction(async (tx) => {
      await tx.oauth.members.setPassword(member.id, hash, at);
      await audit(ctx, tx, {
        action: 'member.password',
        workspaceId: workspace.id,
        subject: member.id,
      });
    });
    return { ...member, updatedAt: at };
  });
}

/**
 * Gives a member another role in their workspace. A workspace keeps at least
 * one owner once it has one: the last owner is not demoted (nor removed).
 */
export async function setMemberRole(ctx: OperatorContext, input: unknown): Promise<Member> {
  return attempt(ctx, 'member.role', input, async () => {
    const { workspace: ref, name, role } = parseInput(MemberRoleSchema, input);
    const workspace = await workspaceOrThrow(ctx, ref);
    const member = await memberOrThrow(ctx, workspace.id, name);
    if (role !== 'owner') await refuseLastOwner(ctx, member, 'role');
    const at = ctx.now().toISOString();
    await ctx.store.transaction(async (tx) => {
      await tx.oauth.members.setRole(member.id, role, at);
      await audit(ctx, tx, {
        action: 'member.role',
        workspaceId: workspace.id,
        subject: `${member.id}:${role}`,
      });
    });
    return { ...member, role, updatedAt: at };
  });
}

/** Removes a member (never the workspace's last owner) and everything it authorized. */
export async function removeMember(ctx: OperatorContext, input: unknown): Promise<Member> {
  return attempt(ctx, 'member.remove', input, async () => {
    const { workspace: ref, name } = parseInput(MemberRefSchema, input);
    const workspace = await workspaceOrThrow(ctx, ref);
    const member = await memberOrThrow(ctx, workspace.id, name);
    await refuseLastOwner(ctx, member, 'name');
    const at = ctx.now().toISOString();
    await ctx.store.transaction(async (tx) => {
      for (const consent of await tx.oauth.consents.list(workspace.id)) {
        if (consent.memberId === member.id)
          await tx.agents.revoke(workspace.id, consent.agentId, at);
      }
      await tx.oauth.members.remove(member.id);
      await audit(ctx, tx, {
        action: 'member.remove',
        workspaceId: workspace.id,
        subject: member.id,
      });
    });
    return member;
  });
}

/** A workspace keeps at least one owner once it has one: its last is neither demoted nor removed. */
async function refuseLastOwner(
  ctx: OperatorContext,
  member: Member,
  field: 'role' | 'name',
): Promise<void> {
  if (member.role !== 'owner') return;
  const owners = (await ctx.store.oauth.members.list(member.workspaceId)).filter(
    (m) => m.role === 'owner',
  );
  if (owners.length === 1)
    throw new GatewayError(
      'conflict',
      `${member.name} is the workspace's only owner: make another member owner first (portcullis member role <name> owner)`,
      { field },
    );
}

export async function memberOrThrow(
  ctx: OperatorContext,
  workspaceId: string,
  name: string,
): Promise<Member> {
  const found = await ctx.store.oauth.members.byName(name);
  if (found && found.workspaceId === workspaceId) {
    const { passwordHash: _, ...member } = found;
    return member;
  }
  const names = (await ctx.store.oauth.members.list(workspaceId)).map((m) => m.name);
  throw new GatewayError(
    'not_found',
    `no member ${name} in this workspace${didYouMean(name, names)}`,
    {
      field: 'name',
    },
  );
}

function refuseWeak(password: string): void {
  const problem = passwordProblem(password);
  if (problem)
    throw new GatewayError('invalid_input', `password: ${problem}`, { field: 'password' });
}

/** What an audit of a refused verb may see of the input: never the password. */
function withoutPassword(input: unknown): unknown {
  if (typeof input !== 'object' || input === null) return input;
  const { password: _, ...rest } = input as Record<string, unknown>;
  return rest;
}
