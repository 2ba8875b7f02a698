/** Authentication as its own module: strategies by token form, the snapshot handed on. */
import { describe, expect, it } from 'vitest';
import type { GovernanceSnapshot } from '../../../../../runtime/core/governance/snapshot.ts';
import {
  type CredentialStrategy,
  Principals,
} from '../../../../../runtime/core/identity/principals/principals.ts';
import type { Agent } from '../../../../../runtime/core/model/governance.ts';

const ACTIVE: Agent = {
  id: 'agt_1',
  workspaceId: 'ws_1',
  name: 'bot',
  keyPrefix: 'x',
  status: 'active',
  createdAt: '2026-01-01T00:00:00Z',
  revokedAt: null,
  memberId: null,
  toolsMode: null,
};
const snapshot = { revision: 7 } as unknown as GovernanceSnapshot;
const governance = { current: async () => snapshot };

/** A strategy for tokens `t:<agent status>`: stands for one agent in that status. */
const testTokens: CredentialStrategy = {
  kind: 'agent_key',
  recognises: (token) => token.startsWith('t:'),
  verify: (token, seen) => {
    expect(seen).toBe(snapshot);
    return token === 't:active'
      ? { agent: ACTIVE }
      : token === 't:revoked'
        ? { agent: { ...ACTIVE, status: 'revoked' } }
        : undefined;
  },
};

describe('principals', () => {
  const principals = new Principals(governance, [testTokens]);

  it.each([
    ['no header', undefined],
    ['not a bearer token', 'Basic dTpw'],
    ['a token no strategy recognises', 'Bearer other'],
    ['a token for nobody', 'Bearer t:nobody'],
    ['a revoked agent', 'Bearer t:revoked'],
  ])('authenticates nobody for %s', async (_name, header) => {
    expect(await principals.authenticate(header)).toBeUndefined();
  });

  it('hands on the caller and the snapshot its credential was checked against', async () => {
    expect(await principals.authenticate('Bearer t:active')).toEqual({
      agentId: 'agt_1',
      workspaceId: 'ws_1',
      via: 'agent_key',
      scopes: undefined,
      snapshot,
    });
  });
});
