/**
 * The decision on one call, from rows already resolved: may this agent do
 * what it asks on this connection now? What it asks is one of the
 * connection's actions (a tool call), or a read of its prompts, resources
 * and templates (one of them, or their lists). Returns the reason code that
 * refuses it, or null. Pure, so every rule has a table-driven test; the
 * pipeline's decision on a call (`pipeline/decision.ts`) adds what the
 * caller's token allows.
 */
import type { ReasonCode } from '../base/errors.ts';
import type { ActionPolicy, Agent, Connection, Grant } from '../model/governance.ts';
import type { RemoteFeatureKind } from '../model/remote.ts';
import type { GovernedAction } from './tool-source.ts';

/** A read of a connection's prompts, resources and templates: one of them (`item`), or their lists. */
export interface FeatureRead {
  readonly reads: 'features';
  /** The one named, with its pin's contract hash (undefined: not pinned). */
  readonly item?: {
    readonly kind: RemoteFeatureKind;
    readonly contractHash: string | undefined;
    /** An MCP App's page (a `ui://` resource): never read as data, off with the connection's apps. */
    readonly app?: boolean;
  };
}

/** The connection setting an operator turns a connection's MCP Apps off with (`portcullis apps`). */
export const APPS_SETTING = 'apps';

/** Whether an operator turned the connection's MCP Apps off. */
export function appsTurnedOff(connection: Pick<Connection, 'settings'>): boolean {
  return connection.settings[APPS_SETTING] === 'off';
}

export interface DecisionInput {
  agent: Agent;
  connection: Connection;
  grant: Grant | undefined;
  /** The policy of the action, or of the feature read (none for a list). */
  policy: ActionPolicy | undefined;
  action: GovernedAction | FeatureRead;
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
  if (!('reads' in action)) return policyRefusal(policy, action.contractHash);
  const { item } = action;
  if (item === undefined) return null;
  if (item.app === true && appsTurnedOff(connection)) return 'action_disabled';
  // An app's page is shown to a person: only one an operator reviewed.
  if (item.app === true && item.contractHash === undefined) return 'action_quarantined';
  // A resource its server does not list (a template's, a link a tool returned) is read as data.
  if (item.kind !== 'prompt' && item.contractHash === undefined && policy === undefined)
    return null;
  return policyRefusal(policy, item.contractHash);
}

/**
 * What the action's policy says of the contract about to be served: the
 * reason that holds it back (not reviewed, off, retired, or a contract other
 * than the one reviewed), or null. A call's decision ends here, and so does
 * the one on each prompt, resource or template a connection's server lists.
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
    // A call to an `ask` action is allowed here and held by the pipeline (pipeline/held-calls.ts).
    case 'enabled':
    case 'ask':
      break;
  }
  if (policy.reviewedHash !== contractHash) return 'contract_changed';
  return null;
}

/**
 * Whether the grant covers what is asked. A connection's prompts and
 * resources are read as a whole: a grant of all or of reads covers them, one
 * of chosen actions does not.
 */
export function grantCovers(grant: Grant, action: GovernedAction | FeatureRead): boolean {
  if ('reads' in action) return grant.scope === 'all' || grant.scope === 'reads';
  switch (grant.scope) {
    case 'all':
      return true;
    case 'reads':
      return action.classification === 'read';
    case 'actions':
      return grant.actions.includes(action.name);
  }
}
