/** Rows to store, and a way to read the error a store call fails with. */
import { expect } from 'vitest';
import { GatewayError } from '../../runtime/core/base/errors.ts';
import type { Approval } from '../../runtime/core/model/approvals.ts';
import type {
  ActionPolicy,
  Agent,
  Connection,
  Grant,
  NewAuditEvent,
  SealedCredential,
  Workspace,
} from '../../runtime/core/model/governance.ts';

export const T0 = '2025-01-01T00:00:00.000Z';
export const T1 = '2025-01-02T00:00:00.000Z';
export const T2 = '2025-01-03T00:00:00.000Z';
export const T3 = '2025-01-04T00:00:00.000Z';

export function aWorkspace(overrides: Partial<Workspace> = {}): Workspace {
  return { id: 'ws_1', name: 'default', createdAt: T0, toolsMode: 'direct', ...overrides };
}

export function anAgent(overrides: Partial<Agent> = {}): Agent {
  return {
    id: 'agt_1',
    workspaceId: 'ws_1',
    name: 'builder',
    keyPrefix: 'pk_live_ab',
    status: 'active',
    createdAt: T0,
    revokedAt: null,
    memberId: null,
    toolsMode: null,
    ...overrides,
  };
}

export function aConnection(overrides: Partial<Connection> = {}): Connection {
  return {
    id: 'conn_1',
    workspaceId: 'ws_1',
    name: 'unikraft',
    provider: 'unikraft',
    settings: { metro: 'fra0' },
    status: 'pending',
    health: 'unknown',
    failureStreak: 0,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

export function aCredential(overrides: Partial<SealedCredential> = {}): SealedCredential {
  return {
    workspaceId: 'ws_1',
    connectionId: 'conn_1',
    agentId: null,
    field: 'token',
    sealed: 'v1.0011223344556677.aXY.Y2lwaGVy.dGFn',
    keyId: '0011223344556677',
    updatedAt: T0,
    ...overrides,
  };
}

export function aGrant(overrides: Partial<Grant> = {}): Grant {
  return {
    id: 'grt_1',
    workspaceId: 'ws_1',
    agentId: 'agt_1',
    connectionId: 'conn_1',
    scope: 'all',
    actions: [],
    credentialMode: 'shared',
    createdAt: T0,
    ...overrides,
  };
}

export function aPolicy(overrides: Partial<ActionPolicy> = {}): ActionPolicy {
  return {
    connectionId: 'conn_1',
    workspaceId: 'ws_1',
    action: 'instances_list',
    classification: 'read',
    state: 'enabled',
    reviewedHash: 'sha256:aaaa',
    currentHash: 'sha256:aaaa',
    updatedAt: T0,
    ...overrides,
  };
}

export function anEvent(overrides: Partial<NewAuditEvent> = {}): NewAuditEvent {
  return {
    at: T0,
    workspaceId: 'ws_1',
    actorKind: 'agent',
    actorId: 'agt_1',
    action: 'unikraft__instances_list',
    subject: null,
    connectionId: 'conn_1',
    decision: 'allowed',
    reason: null,
    outcome: 'ok',
    upstreamHost: 'api.fra.unikraft.cloud',
    upstreamAddress: 'http://127.0.0.1:4010',
    upstreamStatus: 200,
    latencyMs: 42.125,
    requestBytes: 120,
    replyBytes: 4096,
    argumentHash: 'sha256:bbbb',
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    via: null,
    ...overrides,
  };
}

/** The `GatewayError` the call fails with; fails the test when it succeeds or throws something else. */
export async function failureOf(call: Promise<unknown>): Promise<GatewayError> {
  const outcome = await call.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome, 'expected the call to fail').toBeInstanceOf(GatewayError);
  return outcome as GatewayError;
}

export { reasonOf } from './reason.ts';

/** A pending approval of a call that answered no task, held at T0 for 15 minutes. */
export function anApproval(overrides: Partial<Approval> = {}): Approval {
  return {
    id: 'apr_1',
    workspaceId: 'ws_1',
    agentId: 'agt_1',
    memberId: null,
    connectionId: 'con_1',
    action: 'unikraft_delete_volumes',
    classification: 'destructive',
    argumentsHash: 'a'.repeat(64),
    arguments: '{"body":[{"name":"v"}]}',
    shownArguments: '{"body":[{"name":"v"}]}',
    state: 'pending',
    taskRef: null,
    callContext: null,
    deliveredAt: null,
    decidedBy: null,
    decidedAt: null,
    reason: null,
    createdAt: T0,
    expiresAt: '2025-01-01T00:15:00.000Z',
    executedAt: null,
    ...overrides,
  };
}
