/**
 * Whom a caller's calls act for: the member whose consent made its agent
 * (with the agent and the OAuth client its token was issued to), or
 * nobody (an operator's agent). A connection set to act on the member's
 * behalf exchanges their token for these calls, and the call's audit event
 * names the chain. A caller whose access token was issued from an ID-JAG
 * acts for the member the IdP named on every call: each of its events names
 * the chain, with the IdP (`audited-call.ts` writes it as the event opens).
 */

import type { ToolTarget } from '../governance/tool-source.ts';
import { agentOf, type Caller } from '../identity/principals/principals.ts';
import { type ActingFor, delegationText } from '../model/delegation.ts';
import type { NewAuditEvent } from '../model/governance.ts';
import type { Executor } from '../sources/executor.ts';

export function actingForOf(caller: Caller): ActingFor | undefined {
  const agent = agentOf(caller);
  if (!agent || agent.memberId === null) return undefined;
  return {
    memberId: agent.memberId,
    agentId: agent.id,
    clientId: caller.clientId ?? null,
    ...(caller.idp === undefined ? {} : { idp: caller.idp }),
    readAt: caller.snapshot.revision,
  };
}

/** The chain every event of an ID-JAG's caller names (the IdP decided whom it acts for); undefined for other callers. */
export function issuedDelegation(caller: Caller): string | undefined {
  const acting = caller.idp === undefined ? undefined : actingForOf(caller);
  return acting === undefined ? undefined : delegationText(acting);
}

/** Names the delegation chain in the call's audit event when the call goes upstream on the member's behalf. */
export function recordDelegation(
  event: Pick<NewAuditEvent, 'delegation'>,
  executor: Executor,
  target: ToolTarget,
  acting: ActingFor | undefined,
): void {
  if (acting && executor.delegates?.(target, acting)) event.delegation = delegationText(acting);
}
