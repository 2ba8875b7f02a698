/**
 * Whom a caller's calls act for: the member whose consent made its agent
 * (with the agent and the OAuth client its token was issued to), or
 * nobody (an operator's agent). A connection set to act on the member's
 * behalf exchanges their token for these calls, and the call's audit event
 * names the chain.
 */

import type { ToolTarget } from '../governance/tool-source.ts';
import { agentOf, type Caller } from '../identity/principals/principals.ts';
import { type ActingFor, delegationText } from '../model/delegation.ts';
import type { Executor } from '../sources/executor.ts';
import type { AuditedCall } from './audited-call.ts';

export function actingForOf(caller: Caller): ActingFor | undefined {
  const agent = agentOf(caller);
  if (!agent || agent.memberId === null) return undefined;
  return { memberId: agent.memberId, agentId: agent.id, clientId: caller.clientId ?? null };
}

/** Names the delegation chain in the call's audit event when the call goes upstream on the member's behalf. */
export function recordDelegation(
  audited: AuditedCall,
  executor: Executor,
  target: ToolTarget,
  acting: ActingFor | undefined,
): void {
  if (acting && executor.delegates?.(target, acting))
    audited.event.delegation = delegationText(acting);
}
