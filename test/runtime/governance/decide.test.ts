import { describe, expect, it } from 'vitest';
import type { CatalogAction } from '../../../generated/catalog-format.ts';
import { decide } from '../../../runtime/core/governance/decide.ts';
import type {
  ActionPolicy,
  Agent,
  Connection,
  Grant,
} from '../../../runtime/core/model/governance.ts';

const action = {
  name: 'unikraft_get_user',
  classification: 'read',
  contractHash: 'h1',
} as CatalogAction;
const write = {
  name: 'unikraft_create_instance',
  classification: 'write',
  contractHash: 'h2',
} as CatalogAction;
const agent: Agent = {
  id: 'a1',
  workspaceId: 'w1',
  name: 'bot',
  keyPrefix: 'pck_xx',
  status: 'active',
  createdAt: '',
  revokedAt: null,
  memberId: null,
};
const connection: Connection = {
  id: 'c1',
  workspaceId: 'w1',
  name: 'unikraft',
  provider: 'unikraft',
  settings: {},
  status: 'active',
  health: 'ok',
  failureStreak: 0,
  createdAt: '',
  updatedAt: '',
};
const grant: Grant = {
  id: 'g1',
  workspaceId: 'w1',
  agentId: 'a1',
  connectionId: 'c1',
  scope: 'all',
  actions: [],
  credentialMode: 'shared',
  createdAt: '',
};
const policy: ActionPolicy = {
  connectionId: 'c1',
  workspaceId: 'w1',
  action: action.name,
  classification: 'read',
  state: 'enabled',
  reviewedHash: 'h1',
  currentHash: 'h1',
  updatedAt: '',
};

type Case = [string, { given: Partial<Parameters<typeof decide>[0]>; want: string | null }];

const cases: Case[] = [
  ['an enabled, reviewed, granted read', { given: {}, want: null }],
  [
    'a revoked agent',
    { given: { agent: { ...agent, status: 'revoked' } }, want: 'unauthenticated' },
  ],
  [
    "another workspace's connection",
    { given: { connection: { ...connection, workspaceId: 'w2' } }, want: 'tool_unknown' },
  ],
  ['no grant', { given: { grant: undefined }, want: 'not_granted' }],
  ["another agent's grant", { given: { grant: { ...grant, agentId: 'a2' } }, want: 'not_granted' }],
  [
    'a reads-only grant and a write',
    {
      given: {
        grant: { ...grant, scope: 'reads' },
        action: write,
        policy: { ...policy, action: write.name, reviewedHash: 'h2' },
      },
      want: 'not_granted',
    },
  ],
  [
    'a chosen-actions grant without the action',
    { given: { grant: { ...grant, scope: 'actions', actions: ['x'] } }, want: 'not_granted' },
  ],
  [
    'a chosen-actions grant with the action',
    { given: { grant: { ...grant, scope: 'actions', actions: [action.name] } }, want: null },
  ],
  [
    'a pending connection',
    { given: { connection: { ...connection, status: 'pending' } }, want: 'connection_inactive' },
  ],
  ['no policy row', { given: { policy: undefined }, want: 'action_quarantined' }],
  [
    'a disabled action',
    { given: { policy: { ...policy, state: 'disabled' } }, want: 'action_disabled' },
  ],
  [
    'a quarantined action',
    { given: { policy: { ...policy, state: 'quarantined' } }, want: 'action_quarantined' },
  ],
  [
    'a retired action',
    { given: { policy: { ...policy, state: 'retired' } }, want: 'action_retired' },
  ],
  [
    'a contract changed since review',
    { given: { action: { ...action, contractHash: 'h9' } }, want: 'contract_changed' },
  ],
  [
    'a never-reviewed enabled action',
    { given: { policy: { ...policy, reviewedHash: null } }, want: 'contract_changed' },
  ],
];

describe('decide', () => {
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(decide({ agent, connection, grant, policy, action, ...given })).toBe(want);
  });
});
