/**
 * A header value with a line break or control character is refused, never
 * trimmed into shape, wherever it arrives: a pasted `mcpServers` snippet (a
 * custom header or `Authorization: Bearer`), the command's `--token-env` and
 * `--header-env`, and the admin API's paste values. The refusal names the
 * field, and nothing reaches the server.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importConfig } from '../../../../../runtime/core/operator/remote-import.ts';
import { parseMcpServers } from '../../../../../runtime/core/sources/remote-mcp/mcp-servers-config.ts';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.ts';
import { reasonOf } from '../../../../support/reason.ts';
import { startUpstream, type Upstream } from '../../../../support/remote/upstream-servers.ts';
import { runPortcullisHere } from '../../../../support/run-cli.ts';

const snippet = (headers: Record<string, string>, url = 'https://a.example/mcp') =>
  JSON.stringify({ mcpServers: { x: { url, headers } } });

type Case = [string, { given: Record<string, string>; want: { code: string; field: string } }];

const pasted: Case[] = [
  [
    'a trailing CRLF in a custom header',
    {
      given: { 'X-Api-Key': 'key\r\n' },
      want: { code: 'header_refused', field: 'mcpServers.x.headers.X-Api-Key' },
    },
  ],
  [
    'a trailing LF in a custom header',
    {
      given: { 'X-Api-Key': 'key\n' },
      want: { code: 'header_refused', field: 'mcpServers.x.headers.X-Api-Key' },
    },
  ],
  [
    'a leading CR in a custom header',
    {
      given: { 'X-Api-Key': '\rkey' },
      want: { code: 'header_refused', field: 'mcpServers.x.headers.X-Api-Key' },
    },
  ],
  [
    'a NUL in a custom header',
    {
      given: { 'X-Api-Key': 'k\u0000ey' },
      want: { code: 'header_refused', field: 'mcpServers.x.headers.X-Api-Key' },
    },
  ],
  [
    'a trailing CRLF in the bearer key',
    {
      given: { Authorization: 'Bearer key\r\n' },
      want: { code: 'header_refused', field: 'mcpServers.x.headers.Authorization' },
    },
  ],
  [
    'a tab inside the bearer key',
    {
      given: { Authorization: 'Bearer k\tey' },
      want: { code: 'header_refused', field: 'mcpServers.x.headers.Authorization' },
    },
  ],
];

describe('a pasted header value', () => {
  it.each(pasted)('%s is refused, naming the field', (_name, { given, want }) => {
    expect(reasonOf(() => parseMcpServers(snippet(given)))).toEqual(want);
  });

  it('keeps its surrounding spaces trimmed', () => {
    const [server] = parseMcpServers(
      snippet({ Authorization: ' Bearer key ', 'X-Region': ' eu ' }),
    );
    expect(server?.bearer).toEqual({ header: 'Authorization', value: 'key' });
    expect(server?.headers).toEqual([{ header: 'X-Region', value: 'eu' }]);
  });
});

describe('a header value with a line break, through the gateway', () => {
  let gateway: TestGateway;
  let upstream: Upstream;

  beforeAll(async () => {
    [gateway, upstream] = await Promise.all([
      startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
      startUpstream('stateful'),
    ]);
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });
  const cliEnv = (more: Record<string, string> = {}) => ({
    PORTCULLIS_DATA_DIR: gateway.dataDir,
    PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
    ...more,
  });
  const refusal = (stderr: string) => {
    const { error } = JSON.parse(stderr) as { error: { code: string; field?: string } };
    return { code: error.code, field: error.field };
  };

  it.each([
    ['an imported snippet', 'X-Api-Key', 'mcpServers.x.headers.X-Api-Key'],
    ['an imported bearer key', 'Authorization', 'mcpServers.x.headers.Authorization'],
  ])('%s ending in CRLF is refused by import', async (_name, header, field) => {
    const file = join(gateway.dataDir, `crlf-${header}.json`);
    const value = header === 'Authorization' ? 'Bearer key\r\n' : 'key\r\n';
    writeFileSync(file, snippet({ [header]: value }, upstream.url));
    const run = await runPortcullisHere(['import', file, '--json'], cliEnv());
    expect(run.code).toBe(1);
    expect(refusal(run.stderr)).toEqual({ code: 'header_refused', field });
  });

  it.each([
    ['--token-env', ['--token-env', 'KEY'], 'token'],
    ['--header-env', ['--header-env', 'X-Api-Key=KEY'], 'headers.X-Api-Key'],
  ])(
    'a value ending in CRLF given with %s is refused by connect-url',
    async (_flag, flags, field) => {
      const run = await runPortcullisHere(
        ['connect-url', upstream.url, '--name', `crlf-${field.length}`, ...flags, '--json'],
        cliEnv({ KEY: 'key\r\n' }),
      );
      expect(run.code).toBe(1);
      expect(refusal(run.stderr)).toEqual({ code: 'header_refused', field });
    },
  );

  it("is refused in the admin API's paste values", async () => {
    const ctx = gateway.running.gateway.operator('test');
    expect(
      await reasonOf(
        importConfig(ctx, {
          workspace: 'default',
          config: snippet({ Authorization: `Bearer ${'$'}{KEY}` }, upstream.url),
          values: { Authorization: 'key\r\n' },
        }),
      ),
    ).toEqual({ code: 'header_refused', field: 'token' });
  });
});
