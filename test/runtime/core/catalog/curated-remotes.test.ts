/** A pasted URL → the curated remote definition it belongs to, over the generated manifests. */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CatalogSet,
  generatedProviderFiles,
} from '../../../../runtime/core/catalog/catalog-set.ts';
import {
  CuratedRemotes,
  generatedRemoteFiles,
  matchCuratedRemote,
} from '../../../../runtime/core/catalog/curated-remotes.ts';
import { GENERATED } from '../../../support/gateway.ts';

let remotes: CuratedRemotes;

beforeAll(async () => {
  remotes = await CuratedRemotes.load(generatedRemoteFiles(GENERATED));
});

describe('matchCuratedRemote', () => {
  it.each<[string, { given: string; want: string | undefined }]>([
    ['Linear as documented', { given: 'https://mcp.linear.app/mcp', want: 'linear' }],
    ['Linear with a trailing slash', { given: 'https://mcp.linear.app/mcp/', want: 'linear' }],
    ["Linear's SSE address", { given: 'https://mcp.linear.app/sse', want: 'linear' }],
    ['Linear with the default port', { given: 'https://mcp.linear.app:443/mcp', want: 'linear' }],
    ['Linear in capitals', { given: 'HTTPS://MCP.LINEAR.APP/mcp', want: 'linear' }],
    ['Linear pasted with spaces', { given: '  https://mcp.linear.app/mcp\n', want: 'linear' }],
    [
      'Linear with a query and a fragment',
      { given: 'https://mcp.linear.app/mcp?x=1#y', want: 'linear' },
    ],
    ['GitHub as documented', { given: 'https://api.githubcopilot.com/mcp/', want: 'github' }],
    ['GitHub without the slash', { given: 'https://api.githubcopilot.com/mcp', want: 'github' }],
    [
      "GitHub's read-only path",
      { given: 'https://api.githubcopilot.com/mcp/readonly', want: 'github' },
    ],
    [
      'a GitHub toolset path',
      { given: 'https://api.githubcopilot.com/mcp/x/issues', want: 'github' },
    ],
    ['Sentry as documented', { given: 'https://mcp.sentry.dev/mcp', want: 'sentry' }],
    [
      'Sentry scoped to an organization',
      { given: 'https://mcp.sentry.dev/mcp/acme/web', want: 'sentry' },
    ],
    // Not theirs.
    ['plain http', { given: 'http://mcp.linear.app/mcp', want: undefined }],
    [
      'a lookalike host (suffix)',
      { given: 'https://mcp.linear.app.evil.example/mcp', want: undefined },
    ],
    ['a lookalike host (prefix)', { given: 'https://evilmcp.linear.app/mcp', want: undefined }],
    ['a subdomain', { given: 'https://eu.mcp.linear.app/mcp', want: undefined }],
    [
      'credentials before the host',
      { given: 'https://mcp.linear.app@evil.example/mcp', want: undefined },
    ],
    [
      'credentials on the right host',
      { given: 'https://user:pw@mcp.linear.app/mcp', want: undefined },
    ],
    ['another port', { given: 'https://mcp.linear.app:8443/mcp', want: undefined }],
    ['a trailing dot on the host', { given: 'https://mcp.linear.app./mcp', want: undefined }],
    ['an exact path continued', { given: 'https://mcp.linear.app/mcp/extra', want: undefined }],
    ['an exact path in other case', { given: 'https://mcp.linear.app/MCP', want: undefined }],
    [
      'a prefix without its segment boundary',
      { given: 'https://api.githubcopilot.com/mcpx', want: undefined },
    ],
    ['a prefix with a dash', { given: 'https://mcp.sentry.dev/mcp-evil', want: undefined }],
    ['a parent of the prefix', { given: 'https://api.githubcopilot.com/', want: undefined }],
    ['a percent-escaped path', { given: 'https://mcp.linear.app/%6Dcp', want: undefined }],
    [
      'dot segments out of the prefix',
      { given: 'https://api.githubcopilot.com/mcp/../admin', want: undefined },
    ],
    ['no URL at all', { given: 'mcp.linear.app/mcp', want: undefined }],
    ['an empty paste', { given: '', want: undefined }],
    ['a javascript: URL', { given: 'javascript:alert(1)//mcp.linear.app/mcp', want: undefined }],
  ])('%s', (_, { given, want }) => {
    expect(remotes.match(given)?.definition.id).toBe(want);
  });

  it('says which endpoint pattern matched, with its transport', () => {
    expect(remotes.match('https://mcp.linear.app/sse')?.endpoint).toEqual({
      url: 'https://mcp.linear.app/sse',
      match: 'exact',
      transport: 'sse',
    });
  });

  it('takes a definition pattern as text, never as a regular expression', () => {
    const manifest = structuredClone(remotes.get('linear')!);
    manifest.connection.endpoints = [
      { url: 'https://mcp.linear.app/m.p', match: 'exact', transport: 'streamable-http' },
    ];
    expect(matchCuratedRemote('https://mcp.linear.app/mcp', [manifest])).toBeUndefined();
    expect(matchCuratedRemote('https://mcp.linear.app/m.p', [manifest])?.definition.id).toBe(
      'linear',
    );
  });

  it('prefers the longest pattern when hand-made lists overlap', () => {
    const broad = structuredClone(remotes.get('github')!);
    const narrow = structuredClone(remotes.get('sentry')!);
    broad.connection.endpoints = [
      { url: 'https://mcp.example.test/', match: 'prefix', transport: 'streamable-http' },
    ];
    narrow.connection.endpoints = [
      { url: 'https://mcp.example.test/mcp', match: 'prefix', transport: 'streamable-http' },
    ];
    expect(
      matchCuratedRemote('https://mcp.example.test/mcp/a', [broad, narrow])?.definition.id,
    ).toBe('sentry');
    expect(
      matchCuratedRemote('https://mcp.example.test/other', [broad, narrow])?.definition.id,
    ).toBe('github');
  });
});

describe('the catalog set', () => {
  it('lists curated remotes apart from the native providers', async () => {
    const catalogs = await CatalogSet.load(
      generatedProviderFiles(GENERATED),
      generatedRemoteFiles(GENERATED),
    );
    expect(catalogs.providers.map((p) => p.id)).toEqual(['coolify', 'daytona', 'unikraft']);
    expect(catalogs.remotes.list.map((r) => r.connection.id)).toEqual([
      'github',
      'linear',
      'sentry',
    ]);
    expect(catalogs.get('linear')).toBeUndefined();
    expect(() => catalogs.getOrThrow('linear')).toThrowError(
      expect.objectContaining({
        code: 'not_found',
        field: 'provider',
        detail: { known: ['coolify', 'daytona', 'unikraft'], remote: 'linear' },
      }),
    );
    for (const remote of catalogs.remotes.list) {
      expect(remote.connection.transport).toBe('remote_mcp');
      expect(remote.connection.documentationUrl).toMatch(/^https:\/\//);
    }
  });

  it('refuses to load a native manifest as a curated remote', async () => {
    await expect(
      CuratedRemotes.load([
        { id: 'unikraft', manifest: new URL('unikraft/manifest.json', GENERATED) },
      ]),
    ).rejects.toThrow(TypeError);
  });
});
