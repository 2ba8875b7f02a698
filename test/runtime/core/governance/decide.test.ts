import { describe, expect, it } from 'vitest';
import type { CatalogAction } from '../../../../generated/catalog-format.ts';
import { decide } from '../../../../runtime/core/governance/decide.ts';
import type {
  ActionPolicy,
  Agent,
  Connection,
  Grant,
} from '../../../../runtime/core/model/governance.ts';

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
  toolsMode: null,
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

/** A read of one of a connection's prompts, resources or templates, or of their lists. */
const prompt = { kind: 'prompt', contractHash: 'h1' } as const;
const promptPolicy: ActionPolicy = { ...policy, action: 'prompt:greet' };

const featureCases: Case[] = [
  [
    'a reviewed prompt under an all grant',
    { given: { action: { reads: 'features', item: prompt } }, want: null },
  ],
  [
    'a reviewed prompt under a reads grant',
    {
      given: { action: { reads: 'features', item: prompt }, grant: { ...grant, scope: 'reads' } },
      want: null,
    },
  ],
  [
    'a prompt under a chosen-actions grant, even one naming it',
    {
      given: {
        action: { reads: 'features', item: prompt },
        grant: { ...grant, scope: 'actions', actions: ['prompt:greet'] },
      },
      want: 'not_granted',
    },
  ],
  [
    'the lists of an inactive connection',
    {
      given: {
        action: { reads: 'features' },
        policy: undefined,
        connection: { ...connection, status: 'pending' },
      },
      want: 'connection_inactive',
    },
  ],
  [
    'the lists of a granted connection',
    { given: { action: { reads: 'features' }, policy: undefined }, want: null },
  ],
  [
    'a prompt changed since review',
    {
      given: { action: { reads: 'features', item: { ...prompt, contractHash: 'h9' } } },
      want: 'contract_changed',
    },
  ],
  [
    'a prompt its server lists but no pin knows',
    {
      given: {
        action: { reads: 'features', item: { kind: 'prompt', contractHash: undefined } },
        policy: undefined,
      },
      want: 'action_quarantined',
    },
  ],
  [
    'a resource no pin knows (read as data)',
    {
      given: {
        action: { reads: 'features', item: { kind: 'resource', contractHash: undefined } },
        policy: undefined,
      },
      want: null,
    },
  ],
  [
    'a disabled resource',
    {
      given: {
        action: { reads: 'features', item: { kind: 'resource', contractHash: 'h1' } },
        policy: { ...promptPolicy, state: 'disabled' },
      },
      want: 'action_disabled',
    },
  ],
  [
    'a retired template',
    {
      given: {
        action: { reads: 'features', item: { kind: 'template', contractHash: 'h1' } },
        policy: { ...promptPolicy, state: 'retired' },
      },
      want: 'action_retired',
    },
  ],
];

describe('decide, on a read of prompts and resources', () => {
  it.each(featureCases)('%s', (_name, { given, want }) => {
    expect(decide({ agent, connection, grant, policy: promptPolicy, action, ...given })).toBe(want);
  });
});
