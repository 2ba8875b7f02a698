/**
 * Consent makes, or on a later approval reuses, ONE agent principal per
 * member and client, so reconnecting never piles up credentials. The agent
 * has no key anyone knows (a random hash): only access tokens act as it, and
 * an operator grants it connections like any agent.
 */
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../../../generated/catalog-rules.ts';
import { auditEvent } from '../../governance/audit-event.ts';
import { hashKey, newId } from '../../governance/keys.ts';
import type { Agent } from '../../model/governance.ts';
import type { Consent, Member } from '../../model/oauth.ts';
import type { ResolvedClient } from './client-metadata-documents.ts';
import type { OAuthContext } from './oauth-context.ts';
import { OAuthError } from './oauth-error.ts';

/**
 * `<member>-<7 hex>`: stable for the pair, a valid agent name. The hex is of
 * the member's id and the client's, so two members whose names share their
 * first 24 characters do not meet on one name for one client.
 */
export function consentAgentName(member: Member, clientId: string): string {
  return `${member.name.slice(0, 24)}-${sha256Hex(`${member.id}\n${clientId}`).slice(0, 7)}`;
}

export async function approveConsent(
  ctx: OAuthContext,
  member: Member,
  client: ResolvedClient,
  scopes: readonly string[],
): Promise<Consent> {
  const at = ctx.now().toISOString();
  return ctx.store.transaction(async (tx) => {
    const existing = await tx.oauth.consents.byMemberAndClient(member.id, client.id);
    let agentId: string;
    if (existing) {
      const agent = await tx.agents.byId(member.workspaceId, existing.agentId);
      if (agent?.status !== 'active') {
        throw new OAuthError(
          'access_denied',
          'an operator has revoked the agent this member uses for this client',
        );
      }
      agentId = agent.id;
    } else {
      const agent: Agent = {
        id: newId(),
        workspaceId: member.workspaceId,
        name: consentAgentName(member, client.id),
        keyPrefix: 'oauth',
        status: 'active',
        createdAt: at,
        revokedAt: null,
        memberId: member.id,
        // A member's OAuth client follows its workspace's tools mode until an operator sets its own.
        toolsMode: null,
      };
      await tx.agents.create(agent, hashKey(randomBytes(32).toString('base64url')));
      agentId = agent.id;
    }
    const consent: Consent = {
      id: existing?.id ?? newId(),
      workspaceId: member.workspaceId,
      memberId: member.id,
      clientId: client.id,
      clientName: client.name,
      agentId,
      // What the member approved for this client so far, while the consent lives:
      // a client stepping up to one more scope keeps the ones it had.
      scopes:
        existing?.status === 'active' ? [...new Set([...existing.scopes, ...scopes])] : [...scopes],
      status: 'active',
      createdAt: existing?.createdAt ?? at,
      updatedAt: at,
      revokedAt: null,
    };
    await tx.oauth.consents.put(consent);
    await tx.audit.append(
      auditEvent({
        at,
        actorKind: 'member',
        actorId: member.id,
        workspaceId: member.workspaceId,
        action: existing ? 'oauth.consent.renew' : 'oauth.consent.create',
        subject: consent.id,
        decision: 'allowed',
        outcome: 'ok',
      }),
    );
    return consent;
  });
}
