import { randomBytes } from 'node:crypto';
/**
 * Every tool call leaves its audit event, one that fails inside the gateway
 * too. The governance view here is a stand-in that fails (nothing real fails
 * on cue); the audit log and the store are the real ones.
 */
import { describe, expect, it } from 'vitest';
import { openStore } from '../../../../runtime/adapters/sql/open-store.ts';
import { Cancellation } from '../../../../runtime/core/base/cancellation.ts';
import type { GovernanceSnapshot } from '../../../../runtime/core/governance/snapshot.ts';
import type { Principals } from '../../../../runtime/core/identity/principals/principals.ts';
import { AuditLog } from '../../../../runtime/core/pipeline/audit-log.ts';
import { GovernedTools } from '../../../../runtime/core/pipeline/governed-tools.ts';
import type { ToolWatch } from '../../../../runtime/core/pipeline/tool-watch.ts';
import { Executors } from '../../../../runtime/core/sources/executor.ts';
import { TaskIds } from '../../../../runtime/core/tasks/task-ids.ts';
import type { CredentialVault } from '../../../../runtime/core/vault/credential-vault.ts';

describe('a tool call that fails inside the gateway', () => {
  it('rethrows the failure and leaves one audit event, with reason internal', async () => {
    const store = await openStore({ sqliteFile: ':memory:' });
    const failing = new TypeError('the governance view broke');
    const tools = new GovernedTools({
      store,
      audit: new AuditLog(store),
      principals: {} as Principals,
      vault: {} as CredentialVault,
      executors: new Executors([]),
      watch: {} as ToolWatch,
      taskIds: new TaskIds({ keys: [randomBytes(32)] }),
    });
    const snapshot = {
      agentById: () => {
        throw failing;
      },
    } as unknown as GovernanceSnapshot;
    await expect(
      tools.callTool(
        { agentId: 'agent-1', workspaceId: 'workspace-1', via: 'agent_key', snapshot },
        {
          name: 'unikraft_get_user',
          arguments: { a: 1 },
          era: 'legacy',
          protocolVersion: '2025-11-25',
          clientCapabilities: {},
          cancel: new Cancellation(),
          progress: () => {},
          log: () => {},
          trace: undefined,
          input: undefined,
        },
      ),
    ).rejects.toBe(failing);
    const events = await store.audit.query({});
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      actorId: 'agent-1',
      action: 'unikraft_get_user',
      reason: 'internal',
      outcome: 'error',
      argumentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    await store.close();
  });
});
