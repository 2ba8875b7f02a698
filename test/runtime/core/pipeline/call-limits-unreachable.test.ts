/**
 * A call a limit applies to, while the shared state cannot be reached (Redis
 * down, or closed): it fails with `state_unavailable` rather than going
 * unlimited, and its one audit event says so.
 */
import { expect, it } from 'vitest';
import type { GovernanceSnapshot } from '../../../../runtime/core/governance/snapshot.ts';
import type { Caller } from '../../../../runtime/core/identity/principals/principals.ts';
import type { NewAuditEvent } from '../../../../runtime/core/model/governance.ts';
import { AuditedCall } from '../../../../runtime/core/pipeline/audited-call.ts';
import { CallLimits, chargeLimits } from '../../../../runtime/core/pipeline/call-limits.ts';
import { MemorySharedState } from '../../../../runtime/core/ports/shared-state/memory-shared-state.ts';
import { aConnection, anAgent } from '../../../support/store-fixtures.ts';
import { outcomeOf } from '../ports/shared-state/state-fixtures.ts';

it('fails a limited call with state_unavailable when the shared state is unreachable, and audits it', async () => {
  const state = new MemorySharedState();
  await state.close();
  const limits = new CallLimits(state, {
    agent: { perMinute: 60, burst: 60 },
    connection: undefined,
  });
  // No override anywhere: the configured default applies.
  const snapshot = { rateLimitOf: () => undefined } as unknown as GovernanceSnapshot;
  const caller = { agentId: 'agt_1', workspaceId: 'ws_1', snapshot } as unknown as Caller;
  const events: NewAuditEvent[] = [];
  const audited = new AuditedCall(
    { caller, action: 'unikraft_get_user', trace: undefined },
    new Date(),
    async (event) => {
      events.push(event);
    },
  );
  const call = {
    agent: anAgent(),
    connection: aConnection(),
    action: 'unikraft_get_user',
    classification: 'read' as const,
  };
  expect(await outcomeOf(chargeLimits(audited, limits, caller, call))).toBe('state_unavailable');
  expect(events).toHaveLength(1);
  expect(events[0]).toMatchObject({ reason: 'state_unavailable', outcome: 'error' });
});
