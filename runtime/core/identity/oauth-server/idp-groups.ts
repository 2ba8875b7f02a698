/**
 * Groups become roles and grants (issue 35): at each sign-in through a
 * provider with a groups claim, the groups the signed ID token lists are
 * read against the provider's mappings (`portcullis idp map`), and what they
 * give is applied and recorded as the groups' doing (`idp_member_effects`):
 *
 * - the highest role of the member's mapped groups; a group never lowers a
 *   role an operator gave, and once the group is gone the member falls back
 *   to the provider's role for new members;
 * - a member grant per mapped connection (reads, or all), unless the
 *   operator granted that connection already (the operator's grant stays,
 *   untouched); removed at the first sign-in without the group.
 *
 * Only a token whose signature was checked reaches this (`idp-sign-in.ts`):
 * a groups claim in an unsigned token never becomes anything.
 */
import { auditEvent } from '../../governance/audit-event.ts';
import { newId } from '../../governance/keys.ts';
import type { IdentityProvider } from '../../model/identity.ts';
import type { Member, MemberRole } from '../../model/oauth.ts';
import type { OAuthContext } from './oauth-context.ts';

const RANK: Record<MemberRole, number> = { member: 0, viewer: 1, operator: 2, owner: 3 };
const MAX_GROUPS = 500;

/** The groups a claim lists: strings only, at most 500. */
export function groupsOf(claim: unknown): Set<string> {
  if (!Array.isArray(claim)) return new Set();
  return new Set(
    claim.filter((group): group is string => typeof group === 'string').slice(0, MAX_GROUPS),
  );
}

/** Applies the member's groups; answers the member as they are now. */
export async function applyGroups(
  ctx: Pick<OAuthContext, 'store' | 'now'>,
  provider: IdentityProvider,
  member: Member,
  claims: Readonly<Record<string, unknown>>,
): Promise<Member> {
  if (provider.groupsClaim === null) return member;
  const groups = groupsOf(claims[provider.groupsClaim]);
  const { store } = ctx;
  const at = ctx.now().toISOString();
  const mappings = (await store.identity.mappings(provider.id)).filter((m) => groups.has(m.group));
  const effects = (await store.identity.effectsOf(member.id)).filter(
    (effect) => effect.providerName === provider.name,
  );
  const audit = (action: string, subject: string) =>
    store.audit.append(
      auditEvent({
        at,
        workspaceId: member.workspaceId,
        actorKind: 'system',
        actorId: 'oauth',
        action,
        subject: subject.slice(0, 300),
        decision: 'allowed',
        outcome: 'ok',
      }),
    );

  // The role: the highest mapped group's.
  let wanted: { role: MemberRole; group: string } | undefined;
  for (const mapping of mappings)
    if (mapping.role !== null && (!wanted || RANK[mapping.role] > RANK[wanted.role]))
      wanted = { role: mapping.role, group: mapping.group };
  const byGroup = effects.find((effect) => effect.kind === 'role');
  let role = member.role;
  if (wanted && (byGroup || RANK[wanted.role] > RANK[member.role])) {
    role = wanted.role;
    await store.identity.putEffect({
      memberId: member.id,
      kind: 'role',
      target: role,
      grantId: null,
      providerName: provider.name,
      group: wanted.group,
      appliedAt: at,
    });
    if (byGroup && byGroup.target !== role)
      await store.identity.removeEffect(member.id, 'role', byGroup.target);
  } else if (!wanted && byGroup) {
    role = provider.role;
    await store.identity.removeEffect(member.id, 'role', byGroup.target);
  }
  if (role !== member.role) {
    await store.oauth.members.setRole(member.id, role, at);
    await audit('idp.group.role', `${member.id}:${role}:${wanted?.group ?? '-'}`);
  }

  // The grants: one per mapped connection, the widest scope of its groups.
  const grants = new Map<string, { scope: 'reads' | 'all'; group: string }>();
  for (const mapping of mappings) {
    if (mapping.connectionId === null) continue;
    const had = grants.get(mapping.connectionId);
    if (!had || (had.scope === 'reads' && mapping.scope === 'all'))
      grants.set(mapping.connectionId, { scope: mapping.scope, group: mapping.group });
  }
  const existing = await store.memberGrants.forMember(member.id);
  for (const [connectionId, { scope, group }] of grants) {
    if (effects.some((effect) => effect.kind === 'grant' && effect.target === connectionId))
      continue;
    // The operator's own grant on it stays, untouched and not the group's.
    if (existing.some((grant) => grant.connectionId === connectionId)) continue;
    const id = newId();
    await store.memberGrants.create({
      id,
      workspaceId: member.workspaceId,
      memberId: member.id,
      connectionId,
      scope,
      actions: [],
      createdAt: at,
    });
    await store.identity.putEffect({
      memberId: member.id,
      kind: 'grant',
      target: connectionId,
      grantId: id,
      providerName: provider.name,
      group,
      appliedAt: at,
    });
    await audit('idp.group.grant', `${member.id}:${connectionId}:${group}`);
  }
  for (const effect of effects) {
    if (effect.kind !== 'grant' || grants.has(effect.target)) continue;
    if (effect.grantId !== null)
      await store.memberGrants.remove(member.workspaceId, effect.grantId);
    await store.identity.removeEffect(member.id, 'grant', effect.target);
    await audit('idp.group.revoke', `${member.id}:${effect.target}:${effect.group}`);
  }
  return { ...member, role };
}
