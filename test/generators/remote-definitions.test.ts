/** Curated remote MCP server definitions: compiled to manifests, byte-exact, and refused field by field. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createRemoteManifest,
  ensureRemotesDistinct,
  parseRemoteDefinition,
} from '../../generators/compile/compile-remote.ts';
import { jsonFile } from '../../generators/emit/banner.ts';
import { CompileError } from '../../generators/errors.ts';
import { generate } from '../../generators/generate.ts';
import { assertHeaderNameAllowed } from '../../runtime/core/sources/remote-mcp/remote-headers.ts';
import { remoteDefinitions } from '../../specs/index.ts';
import type { RemoteDefinitionInput } from '../../specs/remote-definition.ts';
import { ROOT } from '../support/fixtures.ts';

function definition(overrides: Record<string, unknown> = {}): RemoteDefinitionInput {
  return {
    id: 'example',
    name: 'Example',
    description: 'An example remote MCP server.',
    documentationUrl: 'https://docs.example.test/mcp',
    endpoints: [{ url: 'https://mcp.example.test/mcp', match: 'exact' }],
    auth: [{ kind: 'oauth', clientRegistration: 'dynamic' }],
    support: { text: 'Ask Example.' },
    ...overrides,
  } as RemoteDefinitionInput;
}

/** The error a definition is refused with: its code, file and JSON pointer. */
function refusal(value: unknown, key = 'example') {
  try {
    parseRemoteDefinition(key, value);
  } catch (error) {
    if (!(error instanceof CompileError)) throw error;
    return { code: error.code, file: error.place.file, pointer: error.place.pointer };
  }
  throw new Error('the definition was accepted');
}

describe('a curated remote definition', () => {
  it('compiles into a remote_mcp manifest with its defaults filled in', () => {
    const manifest = createRemoteManifest(parseRemoteDefinition('example', definition()));
    expect(manifest.connection).toMatchObject({
      id: 'example',
      transport: 'remote_mcp',
      endpoints: [
        { url: 'https://mcp.example.test/mcp', match: 'exact', transport: 'streamable-http' },
      ],
      defaults: { connectionName: 'example', enabledClasses: ['read'] },
      auth: [{ kind: 'oauth', clientRegistration: 'dynamic' }],
    });
    expect(manifest.connection.definitionHash).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest.$comment).toContain(
      `Source definition: specs/example/remote.ts sha256 ${manifest.connection.definitionHash}`,
    );
    expect(manifest.mcpServers['portcullis-example']?.url).toMatch(/\/mcp\/c\/example$/);
  });

  it('changes its hash when anything in the definition changes, and only then', () => {
    const hash = (d: RemoteDefinitionInput) =>
      createRemoteManifest(parseRemoteDefinition('example', d)).connection.definitionHash;
    expect(hash(definition())).toBe(hash(definition()));
    expect(hash(definition({ support: { text: 'Ask Example again.' } }))).not.toBe(
      hash(definition()),
    );
  });

  it.each(Object.keys(remoteDefinitions))(
    'generated/%s/manifest.json is byte for byte what the definition compiles to',
    (id) => {
      const compiled = jsonFile(
        createRemoteManifest(
          parseRemoteDefinition(id, remoteDefinitions[id as keyof typeof remoteDefinitions]),
        ),
      );
      expect(readFileSync(join(ROOT, 'generated', id, 'manifest.json'), 'utf8')).toBe(compiled);
    },
  );
});

describe('a definition is refused, naming the field to change', () => {
  const endpoint = (url: string, match = 'exact') => ({ endpoints: [{ url, match }] });
  it.each<[string, { given: unknown; want: { code?: string; pointer: string } }]>([
    ['not an object', { given: 'github', want: { pointer: '' } }],
    [
      'an id that is not its folder',
      { given: definition({ id: 'other' }), want: { pointer: '/id' } },
    ],
    ['an id with capitals', { given: definition({ id: 'Example' }), want: { pointer: '/id' } }],
    ['an empty name', { given: definition({ name: ' ' }), want: { pointer: '/name' } }],
    [
      'no description',
      { given: definition({ description: undefined }), want: { pointer: '/description' } },
    ],
    [
      'an http documentation URL',
      {
        given: definition({ documentationUrl: 'http://docs.example.test' }),
        want: { pointer: '/documentationUrl' },
      },
    ],
    ['an unknown field', { given: definition({ logo: 'x.png' }), want: { pointer: '' } }],
    ['no endpoints', { given: definition({ endpoints: [] }), want: { pointer: '/endpoints' } }],
    [
      'an unknown match mode',
      {
        given: definition(endpoint('https://mcp.example.test/mcp', 'glob')),
        want: { pointer: '/endpoints/0/match' },
      },
    ],
    [
      'an unknown transport',
      {
        given: definition({
          endpoints: [{ url: 'https://mcp.example.test/mcp', match: 'exact', transport: 'ws' }],
        }),
        want: { pointer: '/endpoints/0/transport' },
      },
    ],
    [
      'an http endpoint',
      {
        given: definition(endpoint('http://mcp.example.test/mcp')),
        want: { pointer: '/endpoints/0/url' },
      },
    ],
    [
      'an endpoint that is no URL',
      {
        given: definition(endpoint('mcp.example.test/mcp')),
        want: { pointer: '/endpoints/0/url' },
      },
    ],
    [
      'an endpoint with a query',
      {
        given: definition(endpoint('https://mcp.example.test/mcp?x=1')),
        want: { pointer: '/endpoints/0/url' },
      },
    ],
    [
      'an endpoint with a fragment',
      {
        given: definition(endpoint('https://mcp.example.test/mcp#x')),
        want: { pointer: '/endpoints/0/url' },
      },
    ],
    [
      'an endpoint with credentials',
      {
        given: definition(endpoint('https://u:p@mcp.example.test/mcp')),
        want: { pointer: '/endpoints/0/url' },
      },
    ],
    [
      'an endpoint with an upper-case host',
      {
        given: definition(endpoint('https://MCP.example.test/mcp')),
        want: { pointer: '/endpoints/0/url' },
      },
    ],
    [
      'an endpoint with the default port',
      {
        given: definition(endpoint('https://mcp.example.test:443/mcp')),
        want: { pointer: '/endpoints/0/url' },
      },
    ],
    [
      'an endpoint with dot segments',
      {
        given: definition(endpoint('https://mcp.example.test/a/../mcp')),
        want: { pointer: '/endpoints/0/url' },
      },
    ],
    [
      'an endpoint on an IP address',
      {
        given: definition(endpoint('https://203.0.113.7/mcp')),
        want: { pointer: '/endpoints/0/url' },
      },
    ],
    [
      'an endpoint on a single-label host',
      {
        given: definition(endpoint('https://localhost/mcp')),
        want: { pointer: '/endpoints/0/url' },
      },
    ],
    [
      'an endpoint with a percent-escape',
      {
        given: definition(endpoint('https://mcp.example.test/m%63p')),
        want: { pointer: '/endpoints/0/url' },
      },
    ],
    [
      'an endpoint with a wildcard',
      {
        given: definition(endpoint('https://*.example.test/mcp')),
        want: { pointer: '/endpoints/0/url' },
      },
    ],
    [
      'two endpoints that overlap',
      {
        given: definition({
          endpoints: [
            { url: 'https://mcp.example.test/mcp', match: 'prefix' },
            { url: 'https://mcp.example.test/mcp/x', match: 'exact' },
          ],
        }),
        want: { pointer: '/endpoints/1/url' },
      },
    ],
    ['no way to sign in', { given: definition({ auth: [] }), want: { pointer: '/auth' } }],
    [
      'an unknown auth kind',
      { given: definition({ auth: [{ kind: 'magic' }] }), want: { pointer: '/auth/0/kind' } },
    ],
    [
      'the same auth kind twice',
      {
        given: definition({ auth: [{ kind: 'oauth' }, { kind: 'oauth' }] }),
        want: { pointer: '/auth/1/kind' },
      },
    ],
    [
      'none beside another way',
      {
        given: definition({ auth: [{ kind: 'oauth' }, { kind: 'none' }] }),
        want: { pointer: '/auth/1/kind' },
      },
    ],
    [
      'an unknown client registration',
      {
        given: definition({ auth: [{ kind: 'oauth', clientRegistration: 'magic' }] }),
        want: { pointer: '/auth/0/clientRegistration' },
      },
    ],
    [
      'a scope with a space',
      {
        given: definition({ auth: [{ kind: 'oauth', scopes: ['read write'] }] }),
        want: { pointer: '/auth/0/scopes/0' },
      },
    ],
    [
      'a bearer hint without where to get it',
      {
        given: definition({ auth: [{ kind: 'bearer', label: 'Key' }] }),
        want: { pointer: '/auth/0/obtain' },
      },
    ],
    [
      'a credential source on http',
      {
        given: definition({
          auth: [
            {
              kind: 'bearer',
              label: 'Key',
              obtain: { text: 'Settings', url: 'http://example.test/keys' },
            },
          ],
        }),
        want: { pointer: '/auth/0/obtain/url' },
      },
    ],
    [
      'headers without any header',
      {
        given: definition({ auth: [{ kind: 'headers', headers: [] }] }),
        want: { pointer: '/auth/0/headers' },
      },
    ],
    ...[
      'Host',
      'Cookie',
      'Content-Length',
      'Transfer-Encoding',
      'Connection',
      'Proxy-Authorization',
      'Sec-Fetch-Site',
      'Mcp-Session-Id',
      'MCP-Protocol-Version',
      'Mcp-Param-Region',
      'Authorization',
      'X Key',
      'X-Key\r\n',
    ].map(
      (name) =>
        [
          `a header named ${JSON.stringify(name)}`,
          {
            given: definition({
              auth: [
                {
                  kind: 'headers',
                  headers: [{ name, label: 'Key', secret: true, obtain: { text: 'Settings' } }],
                },
              ],
            }),
            want: { pointer: '/auth/0/headers/0/name' },
          },
        ] as [string, { given: unknown; want: { pointer: string } }],
    ),
    [
      'the same header twice',
      {
        given: definition({
          auth: [
            {
              kind: 'headers',
              headers: [
                { name: 'X-Key', label: 'Key', secret: true, obtain: { text: 'Settings' } },
                { name: 'x-key', label: 'Key', secret: true, obtain: { text: 'Settings' } },
              ],
            },
          ],
        }),
        want: { pointer: '/auth/0/headers/1/name' },
      },
    ],
    [
      'an unknown class',
      {
        given: definition({ defaults: { enabledClasses: ['admin'] } }),
        want: { pointer: '/defaults/enabledClasses/0' },
      },
    ],
    [
      'a class twice',
      {
        given: definition({ defaults: { enabledClasses: ['read', 'read'] } }),
        want: { pointer: '/defaults/enabledClasses/1' },
      },
    ],
    [
      'no class at all',
      {
        given: definition({ defaults: { enabledClasses: [] } }),
        want: { pointer: '/defaults/enabledClasses' },
      },
    ],
    [
      'a connection name with capitals',
      {
        given: definition({ defaults: { connectionName: 'Example' } }),
        want: { pointer: '/defaults/connectionName' },
      },
    ],
    ['no support text', { given: definition({ support: {} }), want: { pointer: '/support/text' } }],
  ])('%s', (_, { given, want }) => {
    expect(refusal(given)).toEqual({
      code: want.code ?? 'invalid_definition',
      file: 'specs/example/remote.ts',
      pointer: want.pointer,
    });
  });

  it('accepts a header the server names, and a key hint with where to get it', () => {
    const parsed = parseRemoteDefinition(
      'example',
      definition({
        auth: [
          {
            kind: 'bearer',
            label: 'Key',
            obtain: { text: 'Settings → Keys', url: 'https://example.test/keys' },
          },
          {
            kind: 'headers',
            headers: [
              {
                name: 'X-Workspace',
                label: 'Workspace',
                secret: false,
                obtain: { text: 'The URL' },
              },
            ],
          },
        ],
      }),
    );
    expect(parsed.auth.map((a) => a.kind)).toEqual(['bearer', 'headers']);
  });
});

describe('definitions side by side', () => {
  const parsed = (id: string, endpoints: unknown) =>
    parseRemoteDefinition(id, definition({ id, endpoints }));

  it.each([
    ['the same URL', { url: 'https://mcp.example.test/mcp', match: 'exact' }],
    ['a URL under a prefix', { url: 'https://mcp.example.test/mcp/org', match: 'exact' }],
    ['a prefix of a prefix', { url: 'https://mcp.example.test/', match: 'prefix' }],
  ])('refuses two definitions that match %s', (_, second) => {
    const a = parsed('a', [{ url: 'https://mcp.example.test/mcp', match: 'prefix' }]);
    const b = parsed('b', [second]);
    expect(() => ensureRemotesDistinct([a, b], [])).toThrowError(
      expect.objectContaining({
        code: 'remote_endpoint_overlap',
        place: { file: 'specs/b/remote.ts', pointer: '/endpoints/0/url' },
      }),
    );
  });

  it('accepts neighbours: another path, another host, a longer name', () => {
    const a = parsed('a', [{ url: 'https://mcp.example.test/mcp', match: 'prefix' }]);
    const b = parsed('b', [
      { url: 'https://mcp.example.test/mcpx', match: 'prefix' },
      { url: 'https://mcp.example.test.evil.example/mcp', match: 'prefix' },
      { url: 'https://other.example.test/mcp', match: 'exact' },
    ]);
    expect(() => ensureRemotesDistinct([a, b], [])).not.toThrow();
  });

  it('refuses an id a native provider has (both would write its manifest)', () => {
    const remote = parseRemoteDefinition('unikraft', definition({ id: 'unikraft' }));
    expect(() => ensureRemotesDistinct([remote], ['unikraft'])).toThrowError(
      expect.objectContaining({
        code: 'invalid_definition',
        place: { file: 'specs/unikraft/remote.ts', pointer: '/id' },
      }),
    );
  });

  it('fails the whole run before any pinned document is read', async () => {
    const run = generate({
      providers: {},
      remotes: {
        example: definition({
          endpoints: [{ url: 'http://mcp.example.test/mcp', match: 'exact' }],
        }),
      },
      readPin: () => {
        throw new Error('no pin should be read');
      },
      formatSource: '',
      rulesSource: '',
      createTypes: () => Promise.reject(new Error('no types should be made')),
      formatCode: (_, text) => Promise.resolve(text),
    });
    await expect(run).rejects.toMatchObject({
      code: 'invalid_definition',
      place: { pointer: '/endpoints/0/url' },
    });
  });
});

describe('the header rule of a curated definition', () => {
  it.each([
    'X-Api-Key',
    'Notion-Version',
    'Accept',
    'Content-Type',
    'Content-Encoding',
    'Keep-Alive',
    'TE',
    'Mcp-Name',
    'Mcp-Param-Region',
    'Last-Event-Id',
    'Sec-Ch-Ua',
    'Proxy-Connection',
    'Authorization',
    'X:Key',
  ])('is the runtime’s for an operator’s custom header: %j', (name) => {
    let compilerRefuses = true;
    try {
      parseRemoteDefinition(
        'example',
        definition({
          auth: [
            {
              kind: 'headers',
              headers: [{ name, label: 'Key', secret: true, obtain: { text: 'Settings' } }],
            },
          ],
        }),
      );
      compilerRefuses = false;
    } catch (error) {
      if (!(error instanceof CompileError)) throw error;
    }
    let runtimeRefuses = true;
    try {
      assertHeaderNameAllowed(name, 'headers');
      runtimeRefuses = false;
    } catch {}
    expect(compilerRefuses).toBe(runtimeRefuses);
  });
});
