/**
 * The decision on one tool call, from rows already resolved: may this agent
 * call this action on this connection now? Returns the reason code that
 * refuses it, or null. Pure, so every rule has a table-driven test.
 */
import type { ReasonCode } from '../base/errors.ts';
import type { ActionPolicy, Agent, Connection, Grant } from '../model/governance.ts';
import type { GovernedAction } from './tool-source.ts';

export interface DecisionInput {
  agent: Agent;
  connection: Connection;
  grant: Grant | undefined;
  policy: ActionPolicy | undefined;
  action: GovernedAction;
}

export function decide({
  agent,
  connection,
  grant,
  policy,
  action,
}: DecisionInput): ReasonCode | null {
  if (agent.status !== 'active') return 'unauthenticated';
  // Another workspace's connection does not exist as far as this agent can tell.
  if (connection.workspaceId !== agent.workspaceId) return 'tool_unknown';
  if (!grant || grant.connectionId !== connection.id || grant.agentId !== agent.id) {
    return 'not_granted';
  }
  if (!grantCovers(grant, action)) return 'not_granted';
  if (connection.status !== 'active') return 'connection_inactive';
  return policyRefusal(policy, action.contractHash);
}

/**
 * What the action's policy says of the contract about to be served: the
 * reason that holds it back (not reviewed, off, retired, or a contract other
 * than the one reviewed), or null. A tool call's decision ends here, and so
 * does the one on a prompt, resource or template a connection's server lists.
 */
export function policyRefusal(
  policy: ActionPolicy | undefined,
  contractHash: string | undefined,
): ReasonCode | null {
  if (!policy) return 'action_quarantined';
  switch (policy.state) {
    case 'retired':
      return 'action_retired';
    case 'quarantined':
      return 'action_quarantined';
    case 'disabled':
      return 'action_disabled';
    case 'enabled':
      break;
  }
  if (policy.reviewedHash !== contractHash) return 'contract_changed';
  return null;
}

export function grantCovers(grant: Grant, action: GovernedAction): boolean {
  switch (grant.scope) {
    case 'all':
      return true;
    case 'reads':
      return action.classification === 'read';
    case 'actions':
      return grant.actions.includes(action.name);
  }
}
