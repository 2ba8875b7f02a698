/**
 * The one name rule: only the compiler's names go unprefixed, a remote
 * server's never do, and no two tools of a workspace share a name, whatever
 * names a server picks; a shared name is served by neither, both owners named.
 */
import { describe, expect, it } from 'vitest';
import { fitToolName, TOOL_NAME_MAX } from '../../../../generated/catalog-rules.ts';
import {
  type NamedAction,
  toolNameCollisionError,
  toolNameCollisions,
  toolNameFor,
  toolsByName,
} from '../../../../runtime/core/governance/tool-names.ts';
import { REMOTE_MCP_PROVIDER } from '../../../../runtime/core/model/remote.ts';

const native = (name: string, provider: string) => ({ id: `id-${name}`, name, provider });
const remote = (name: string) => ({ id: `id-${name}`, name, provider: REMOTE_MCP_PROVIDER });

const cases: Array<
  [
    string,
    { given: { connection: { name: string; provider: string }; action: string }; want: string },
  ]
> = [
  [
    'a native connection named after its provider keeps the compiled name',
    {
      given: { connection: native('coolify', 'coolify'), action: 'coolify_list_applications' },
      want: 'coolify_list_applications',
    },
  ],
  [
    'a compiled name that is a discovery tool’s is prefixed, so none shadows search_actions',
    {
      given: { connection: native('search', 'search'), action: 'search_actions' },
      want: 'search__search_actions',
    },
  ],
  [
    'a remote tool named call_action is prefixed like any other',
    {
      given: { connection: remote('tools'), action: 'call_action' },
      want: 'tools__call_action',
    },
  ],
  [
    'a native connection with another name prefixes it',
    {
      given: { connection: native('staging', 'unikraft'), action: 'unikraft_get_user' },
      want: 'staging__unikraft_get_user',
    },
  ],
  [
    'a remote connection named after its own provider still prefixes (the issue’s shadow)',
    {
      given: { connection: remote(REMOTE_MCP_PROVIDER), action: 'bank__transfer' },
      want: 'remote-mcp__bank__transfer',
    },
  ],
  [
    'a remote tool named like a compiled one is prefixed',
    {
      given: { connection: remote('remote'), action: 'coolify_list_applications' },
      want: 'remote__coolify_list_applications',
    },
  ],
  [
    'a remote connection named like a compiled provider is prefixed too',
    {
      given: { connection: remote('coolify'), action: 'coolify_list_applications' },
      want: 'coolify__coolify_list_applications',
    },
  ],
  [
    'a native name with `__` is read as <connection>__<tool>, so it is prefixed',
    {
      given: { connection: native('coolify', 'coolify'), action: 'coolify__x' },
      want: 'coolify__coolify__x',
    },
  ],
  [
    "a native name without its provider's prefix is prefixed",
    {
      given: { connection: native('coolify', 'coolify'), action: 'unikraft_get_user' },
      want: 'coolify__unikraft_get_user',
    },
  ],
];

describe('toolNameFor', () => {
  it.each(cases)('%s', (_, { given, want }) => {
    expect(toolNameFor(given.connection, given.action)).toBe(want);
  });

  it('fits a long name and keeps the whole connection prefix', () => {
    const connection = remote('a'.repeat(32));
    const name = toolNameFor(connection, 'x'.repeat(100));
    expect(name).toHaveLength(TOOL_NAME_MAX);
    expect(name.startsWith(`${'a'.repeat(32)}__`)).toBe(true);
  });
});

describe('no two tools share a name', () => {
  const bank = remote('bank');
  const coolify = native('coolify', 'coolify');
  const hostileNames = [
    'bank__transfer',
    'coolify_list_applications',
    'transfer',
    'remote__transfer',
    `bank__${'t'.repeat(80)}`,
    'x'.repeat(128),
  ];

  it('across connections, whatever names the servers pick', () => {
    const named: NamedAction[] = [
      { connection: bank, action: 'transfer' },
      { connection: coolify, action: 'coolify_list_applications' },
      ...['remote', REMOTE_MCP_PROVIDER, 'remote-2'].flatMap((name) =>
        hostileNames.map((action) => ({ connection: remote(name), action })),
      ),
    ];
    expect(toolNameCollisions(named)).toEqual([]);
  });

  it('within one connection: two server names fitted to one are both refused, both named', () => {
    const hostile = remote('remote');
    const long = `steal_${'y'.repeat(80)}`;
    // A short name spelled as the long one's fitted form.
    const short = fitToolName(`remote__${long}`).slice('remote__'.length);
    const entries = [
      { connection: bank, action: 'transfer' },
      { connection: hostile, action: long },
      { connection: hostile, action: short },
    ];
    const { tools, collisions } = toolsByName(entries, (entry) => entry);
    expect([...tools.keys()]).toEqual(['bank__transfer']);
    expect(collisions).toHaveLength(1);
    const error = toolNameCollisionError(collisions[0]!);
    expect(error.code).toBe('conflict');
    expect(error.detail).toEqual({
      tool: fitToolName(`remote__${long}`),
      owners: [
        { connection: 'remote', action: long },
        { connection: 'remote', action: short },
      ],
    });
  });

  it('a third with the same name is served no more than the first two', () => {
    const one = remote('one');
    const entries = [
      { connection: one, action: 'a', which: 1 },
      { connection: { ...one, id: 'other' }, action: 'a', which: 2 },
      { connection: { ...one, id: 'third' }, action: 'a', which: 3 },
    ];
    const { tools, collisions } = toolsByName(entries, (entry) => entry);
    expect(tools.size).toBe(0);
    expect(collisions).toHaveLength(2);
  });
});
