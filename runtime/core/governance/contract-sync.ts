/**
 * Contract safety: bring a connection's action policies in line with the
 * catalog loaded now. Runs at every start and when a connection is created.
 *
 * - A new connection gets the defaults: reads enabled, writes and destructive
 *   actions disabled, each reviewed at its current contract hash.
 * - An action new to the catalog of an existing connection starts quarantined.
 * - A changed contract keeps its state but records the new hash; the call is
 *   blocked (`contract_changed`) until an operator reviews it again.
 * - An action reclassified as riskier (a read that now writes, a write that is
 *   now destructive) is quarantined, its last reviewed hash kept so listings
 *   call it changed, not new: reviewing it then leaves it at its new class's
 *   default instead of keeping an old "enabled".
 * - An action that left the catalog is retired; if it comes back, it is
 *   quarantined like any new action.
 */
import type { Classification } from '../../../generated/catalog-format.ts';
import type { ActionPolicy, Connection } from '../model/governance.ts';
import type { GovernedAction } from './tool-source.ts';

const RISK: Record<Classification, number> = { read: 0, write: 1, destructive: 2 };

export interface PolicySync {
  /** Rows to write (new or changed). */
  changed: ActionPolicy[];
  added: string[];
  changedContracts: string[];
  retired: string[];
}

export function syncPolicies(
  connection: Pick<Connection, 'id' | 'workspaceId'>,
  actions: readonly GovernedAction[],
  existing: readonly ActionPolicy[],
  now: string,
  mode: 'defaults' | 'quarantine-new',
): PolicySync {
  const byAction = new Map(existing.map((policy) => [policy.action, policy]));
  const result: PolicySync = { changed: [], added: [], changedContracts: [], retired: [] };
  const present = new Set<string>();

  for (const action of actions) {
    present.add(action.name);
    const policy = byAction.get(action.name);
    const base = {
      connectionId: connection.id,
      workspaceId: connection.workspaceId,
      action: action.name,
      classification: action.classification,
      currentHash: action.contractHash,
      updatedAt: now,
    };
    if (!policy) {
      result.added.push(action.name);
      result.changed.push(
        mode === 'defaults'
          ? {
              ...base,
              state: classDefault(action.classification),
              reviewedHash: action.contractHash,
            }
          : { ...base, state: 'quarantined', reviewedHash: null },
      );
    } else if (policy.state === 'retired') {
      result.added.push(action.name);
      result.changed.push({ ...base, state: 'quarantined', reviewedHash: null });
    } else if (RISK[action.classification] > RISK[policy.classification]) {
      result.changedContracts.push(action.name);
      result.changed.push({ ...policy, ...base, state: 'quarantined' });
    } else if (
      policy.currentHash !== action.contractHash ||
      policy.classification !== action.classification
    ) {
      if (policy.reviewedHash !== action.contractHash) result.changedContracts.push(action.name);
      result.changed.push({ ...policy, ...base });
    }
  }

  for (const policy of existing) {
    if (!present.has(policy.action) && policy.state !== 'retired') {
      result.retired.push(policy.action);
      result.changed.push({ ...policy, state: 'retired', updatedAt: now });
    }
  }
  return result;
}

/** Where a new or newly reviewed action starts: reads on, writes and destructive off. */
export function classDefault(classification: Classification): 'enabled' | 'disabled' {
  return classification === 'read' ? 'enabled' : 'disabled';
}
