/**
 * The rules both halves apply (generators/catalog/rules.ts): the runtime
 * imports the copy in generated/, and `npm run generate -- --check` keeps the
 * copy byte for byte; these tests pin what the rules say.
 */
import { describe, expect, it } from 'vitest';
import * as copied from '../../../generated/catalog-rules.ts';
import {
  fitToolName,
  isJsonMediaType,
  isTextMediaType,
  type ServerVariablePlace,
  serverHost,
  serverVariablePlaces,
  TOOL_NAME_MAX,
} from '../../../generators/catalog/rules.ts';
import { toolNameFor } from '../../../runtime/core/governance/tool-names.ts';

describe('the host a server URL calls', () => {
  it.each<[string, string | undefined]>([
    ['https://api.fra.unikraft.cloud', 'api.fra.unikraft.cloud'],
    ['https://API.Example.com/v1', 'api.example.com'],
    ['https://api.example.com:8443/v1', 'api.example.com:8443'],
    ['https://api.example.com:443/v1', 'api.example.com'],
    ['http://api.example.com:80', 'api.example.com'],
    ['http://[::1]:4010/x', '[::1]:4010'],
    ['https://bücher.example', 'xn--bcher-kva.example'],
    ['not a url', undefined],
  ])('%s → %s', (url, host) => {
    expect(serverHost(url)).toBe(host);
  });
});

describe('where a server variable lands', () => {
  type Variables = Record<string, { default?: string; enum?: string[] }>;
  it.each<
    [
      string,
      { given: { url: string; variables: Variables }; want: Record<string, ServerVariablePlace> },
    ]
  >([
    [
      'in the host',
      {
        given: { url: 'https://api.{metro}.example.test', variables: { metro: { enum: ['fra'] } } },
        want: { metro: 'host' },
      },
    ],
    [
      'in the scheme',
      {
        given: { url: '{scheme}://api.example.test', variables: { scheme: { default: 'https' } } },
        want: { scheme: 'host' },
      },
    ],
    [
      'after the host, starting the path',
      {
        given: {
          url: 'https://api.example.test{basePath}',
          variables: { basePath: { default: '/v1' } },
        },
        want: { basePath: 'path-start' },
      },
    ],
    [
      'after the host, every enum value starting the path',
      {
        given: {
          url: 'https://api.example.test{basePath}',
          variables: { basePath: { enum: ['/v1', '/v2'] } },
        },
        want: { basePath: 'path-start' },
      },
    ],
    [
      'after the host, one enum value not starting the path',
      {
        given: {
          url: 'https://api.example.test{basePath}',
          variables: { basePath: { default: '/v1', enum: ['/v1', '.eu'] } },
        },
        want: { basePath: 'host' },
      },
    ],
    [
      'after the host, with no default',
      {
        given: { url: 'https://api.example.test{basePath}', variables: { basePath: {} } },
        want: { basePath: 'host' },
      },
    ],
    [
      'after a slash',
      {
        given: {
          url: 'https://api.example.test/{basePath}',
          variables: { basePath: { default: '/v1' } },
        },
        want: { basePath: 'path' },
      },
    ],
    [
      'in a path segment',
      {
        given: {
          url: 'https://api.example.test/bot{token}',
          variables: { token: { default: '1:a' } },
        },
        want: { token: 'path' },
      },
    ],
    [
      'a host, a base path, and a variable after it',
      {
        given: {
          url: 'https://{tenant}.example.test{basePath}{version}',
          variables: {
            tenant: { enum: ['eu'] },
            basePath: { default: '/api' },
            version: { default: 'v1' },
          },
        },
        want: { tenant: 'host', basePath: 'path-start', version: 'path' },
      },
    ],
    [
      'a relative URL',
      {
        given: { url: '/api/{version}', variables: { version: { default: 'v1' } } },
        want: { version: 'path' },
      },
    ],
    [
      'written in the host and in the path: held to the host',
      {
        given: { url: 'https://{name}.example.test/{name}', variables: { name: { default: 'a' } } },
        want: { name: 'host' },
      },
    ],
  ])('%s', (_name, { given, want }) => {
    expect(serverVariablePlaces(given)).toEqual(want);
    expect(copied.serverVariablePlaces(given)).toEqual(want);
  });
});

describe('which media types are JSON and which are text (request bodies and replies alike)', () => {
  it.each<[string, 'json' | 'text' | 'neither']>([
    ['application/json', 'json'],
    ['Application/JSON; charset=utf-8', 'json'],
    ['application/problem+json', 'json'],
    ['application/vnd.api+json', 'json'],
    ['text/json', 'json'],
    ['application/jsonl', 'text'],
    ['text/plain', 'text'],
    ['text/csv; charset=latin1', 'text'],
    ['application/xml', 'text'],
    ['application/atom+xml', 'text'],
    ['application/openapi+yaml', 'text'],
    ['application/x-www-form-urlencoded', 'text'],
    ['image/png', 'neither'],
    ['application/octet-stream', 'neither'],
    ['application/pdf', 'neither'],
  ])('%s is %s', (type, kind) => {
    const found = isJsonMediaType(type) ? 'json' : isTextMediaType(type) ? 'text' : 'neither';
    expect(found).toBe(kind);
  });
});

describe('tool names fit one limit on both sides', () => {
  it('keeps a name that fits and fits a longer one into a stable, distinct name', () => {
    const short = 'unikraft_get_user';
    const long = `prod__${'daytona_'.repeat(8)}one`;
    const other = `prod__${'daytona_'.repeat(8)}two`;
    expect(fitToolName(short)).toBe(short);
    expect(fitToolName(long)).toHaveLength(TOOL_NAME_MAX);
    expect(fitToolName(long)).toBe(fitToolName(long));
    expect(fitToolName(long)).not.toBe(fitToolName(other));
    expect(fitToolName(long).startsWith('prod__daytona_')).toBe(true);
  });

  it("the gateway's connection__action names are fitted too", () => {
    const action = `daytona_${'x'.repeat(TOOL_NAME_MAX - 'daytona_'.length)}`;
    const name = toolNameFor({ name: 'staging', provider: 'daytona' }, action);
    expect(name).toHaveLength(TOOL_NAME_MAX);
    expect(name).toBe(fitToolName(`staging__${action}`));
    expect(toolNameFor({ name: 'daytona', provider: 'daytona' }, action)).toBe(action);
  });
});

describe('the runtime reads the same rules', () => {
  it('the generated copy exports what the source does, with the same results', () => {
    const value = { b: [1, 'é', null], a: { d: true, c: 1.5e-7 } };
    expect(copied.canonicalJson(value)).toBe('{"a":{"c":1.5e-7,"d":true},"b":[1,"é",null]}');
    expect(copied.hashJson(value)).toBe(copied.sha256Hex(copied.canonicalJson(value)));
    expect(copied.TOOL_NAME_MAX).toBe(TOOL_NAME_MAX);
  });
});
