/**
 * What a client a member approves will be able to reach, for the consent
 * page to say before they approve: per scope, the connections on which the
 * member's grants allow at least one enabled tool of that class ("read tools
 * on 3 connections"). A member with no grants reaches nothing, and the page
 * says so plainly.
 */
import type { Classification } from '../../../../generated/catalog-format.ts';
import type { Grant, MemberGrant } from '../../model/governance.ts';
import type { Member } from '../../model/oauth.ts';
import type { Store } from '../../ports/store.ts';
import { classOf, connectionOf } from '../principals/scopes.ts';

export interface MemberReach {
  /** Whether the member holds any grant at all. */
  hasGrants: boolean;
  /** Per scope asked: the names of the connections it reaches. */
  byScope: ReadonlyMap<string, readonly string[]>;
}

export async function memberReach(
  store: Store,
  member: Member,
  scopes: readonly string[],
): Promise<MemberReach> {
  const grants = await store.memberGrants.forMember(member.id);
  const connections = new Map(
    (await store.connections.list(member.workspaceId)).map((c) => [c.id, c]),
  );
  // Per connection: the classes of the enabled actions the member's grant there allows.
  const classes = new Map<string, Set<Classification>>();
  for (const grant of grants) {
    const connection = connections.get(grant.connectionId);
    if (connection === undefined || connection.status !== 'active') continue;
    const allowed = new Set<Classification>();
    for (const policy of await store.policies.forConnection(connection.id)) {
      if (
        (policy.state === 'enabled' || policy.state === 'ask') &&
        allows(grant, policy.action, policy.classification)
      )
        allowed.add(policy.classification);
    }
    classes.set(connection.name, allowed);
  }
  const byScope = new Map<string, string[]>();
  for (const scope of scopes) {
    const only = connectionOf(scope);
    const wanted = classOf(scope);
    byScope.set(
      scope,
      [...classes]
        .filter(
          ([name, held]) =>
            (only === undefined || only === name) && wanted !== undefined && held.has(wanted),
        )
        .map(([name]) => name)
        .sort(),
    );
  }
  return { hasGrants: grants.length > 0, byScope };
}

function allows(
  grant: Pick<Grant | MemberGrant, 'scope' | 'actions'>,
  action: string,
  classification: Classification,
): boolean {
  if (grant.scope === 'all') return true;
  if (grant.scope === 'reads') return classification === 'read';
  return grant.actions.includes(action);
}
