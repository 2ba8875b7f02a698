/**
 * What every start does before serving: make sure the default workspace
 * exists, and bring every connection's action policies in line with the
 * tools their sources give now (contract safety); and, as the start's very
 * last step, make sure an admin token exists (returned only when created, to
 * be printed once), so a start that fails on the way makes no token it could
 * not print.
 */
import { auditEvent } from '../governance/audit-event.ts';
import { syncPolicies } from '../governance/contract-sync.ts';
import { hashKey, newAdminToken, newId } from '../governance/keys.ts';
import type { ToolSources } from '../governance/tool-source.ts';
import type { ActionPolicy } from '../model/governance.ts';
import { REMOTE_MCP_PROVIDER } from '../model/remote.ts';
import type { Store } from '../ports/store.ts';

export const DEFAULT_WORKSPACE = 'default';

export interface BootstrapReport {
  defaultWorkspaceId: string;
  /** Per connection name: actions added (quarantined), with changed contracts, retired. */
  contracts: Array<{
    connection: string;
    added: string[];
    changedContracts: string[];
    retired: string[];
  }>;
}

export async function bootstrap(
  store: Store,
  toolSources: ToolSources,
  now: Date,
): Promise<BootstrapReport> {
  const at = now.toISOString();
  return store.transaction(async (tx) => {
    let workspace = await tx.workspaces.byName(DEFAULT_WORKSPACE);
    if (!workspace) {
      workspace = { id: newId(), name: DEFAULT_WORKSPACE, createdAt: at, toolsMode: 'direct' };
      await tx.workspaces.create(workspace);
    }
    const contracts: BootstrapReport['contracts'] = [];
    // Every policy in one read, by connection (in action order, as the store lists them).
    const policies = new Map<string, ActionPolicy[]>();
    for (const policy of await tx.policies.all()) {
      const list = policies.get(policy.connectionId);
      if (list) list.push(policy);
      else policies.set(policy.connectionId, [policy]);
    }
    for (const connection of await tx.connections.all()) {
      // A remote MCP connection's tools are its pinned list, synced when it is discovered again.
      if (connection.provider === REMOTE_MCP_PROVIDER) continue;
      const source = toolSources.of(connection);
      const existing = policies.get(connection.id) ?? [];
      const sync = syncPolicies(connection, source?.actions ?? [], existing, at, 'quarantine-new');
      if (sync.changed.length > 0) {
        await tx.policies.putMany(sync.changed);
        await tx.audit.append(
          auditEvent({
            at,
            workspaceId: connection.workspaceId,
            actorKind: 'system',
            action: 'contract.sync',
            subject: `added ${sync.added.length}, changed ${sync.changedContracts.length}, retired ${sync.retired.length}`,
            connectionId: connection.id,
            decision: 'allowed',
            outcome: 'ok',
          }),
        );
        contracts.push({
          connection: connection.name,
          added: sync.added,
          changedContracts: sync.changedContracts,
          retired: sync.retired,
        });
      }
    }
    return { defaultWorkspaceId: workspace.id, contracts };
  });
}

/** The first start's admin token, made when the store has none; undefined when it has one. */
export async function firstAdminToken(store: Store, now: Date): Promise<string | undefined> {
  return store.transaction(async (tx) => {
    if ((await tx.adminTokens.count()) > 0) return undefined;
    const adminToken = newAdminToken();
    await tx.adminTokens.create(newId(), hashKey(adminToken), now.toISOString());
    return adminToken;
  });
}
