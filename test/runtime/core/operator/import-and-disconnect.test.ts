/**
 * Pasted `mcpServers` snippets (placeholders, named environment variables,
 * `Authorization: Bearer`, `command` entries refused) through the real
 * `portcullis` command, and `disconnect`: the connection, its credentials,
 * grants, pinned tools and sessions go; the audit log stays.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import { disconnect } from '../../../../runtime/core/operator/disconnect.ts';
import { grant } from '../../../../runtime/core/operator/grants.ts';
import { parseMcpServers } from '../../../../runtime/core/sources/remote-mcp/mcp-servers-config.ts';
import { startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { reasonOf } from '../../../support/reason.ts';
import { startUpstream, type Upstream } from '../../../support/remote/upstream-servers.ts';
import { runPortcullisHere } from '../../../support/run-cli.ts';

const CANARY = 'canary-import-5e6f7a8b9c';
/** `${NAME}`, as a snippet writes an environment placeholder. */
const env = (name: string) => ['$', '{', name, '}'].join('');

describe('parsing a pasted mcpServers snippet', () => {
  it('reads names, transports and placeholders, and the bearer key', () => {
    const [server] = parseMcpServers(
      JSON.stringify({
        mcpServers: {
          docs: {
            type: 'sse',
            url: 'https://mcp.example.com/sse',
            headers: {
              Authorization: `Bearer ${env('DOCS_TOKEN')}`,
              'X-Team': '<YOUR_TEAM_ID>',
              'X-Region': 'eu',
            },
          },
        },
      }),
    );
    expect(server).toEqual({
      name: 'docs',
      url: 'https://mcp.example.com/sse',
      transport: 'sse',
      bearer: { header: 'Authorization', placeholder: env('DOCS_TOKEN'), env: 'DOCS_TOKEN' },
      headers: [
        { header: 'X-Team', placeholder: '<YOUR_TEAM_ID>' },
        { header: 'X-Region', value: 'eu' },
      ],
    });
  });

  it.each([
    [
      'a command entry',
      { mcpServers: { local: { command: 'npx', args: ['server'] } } },
      'mcpServers.local.command',
    ],
    ['no url', { mcpServers: { x: { type: 'http' } } }, 'mcpServers.x.url'],
    [
      'an unknown type',
      { mcpServers: { x: { url: 'https://a.example/mcp', type: 'ws' } } },
      'mcpServers.x.type',
    ],
    [
      'a Basic Authorization',
      {
        mcpServers: {
          x: { url: 'https://a.example/mcp', headers: { Authorization: 'Basic abc' } },
        },
      },
      'mcpServers.x.headers.Authorization',
    ],
  ])('refuses %s, naming the field', (_, snippet, field) => {
    expect(reasonOf(() => parseMcpServers(JSON.stringify(snippet)))).toEqual({
      code: 'remote_config_invalid',
      field,
    });
  });

  it('refuses a forbidden header name in the paste', () => {
    expect(
      reasonOf(() =>
        parseMcpServers(
          JSON.stringify({
            mcpServers: { x: { url: 'https://a.example/mcp', headers: { Cookie: 'a' } } },
          }),
        ),
      ),
    ).toEqual({ code: 'header_refused', field: 'mcpServers.x.headers.Cookie' });
  });
});

describe('import and disconnect through the gateway', () => {
  let gateway: TestGateway;
  let upstream: Upstream;

  beforeAll(async () => {
    [gateway, upstream] = await Promise.all([
      startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
      startUpstream('stateful', { requireHeader: { name: 'X-Api-Key', value: CANARY } }),
    ]);
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });
  const cliEnv = () => ({
    PORTCULLIS_DATA_DIR: gateway.dataDir,
    PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
  });

  /** `portcullis import` of a snippet naming the server `name`, its header value from a named variable. */
  async function importSnippet(name: string) {
    const file = join(gateway.dataDir, `${name}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          [name]: {
            type: 'http',
            url: upstream.url,
            headers: { 'X-Api-Key': env('WEATHER_KEY') },
          },
        },
      }),
    );
    return runPortcullisHere(['import', file, '--json'], { ...cliEnv(), WEATHER_KEY: CANARY });
  }

  it('imports a snippet whose header value comes from a named environment variable', async () => {
    const run = await importSnippet('weather');
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain(CANARY);
    expect(JSON.parse(run.stdout)).toMatchObject({
      next: 'review',
      endpoint: { authKind: 'headers', headerNames: ['X-Api-Key'] },
    });
    const listed = await runPortcullisHere(['connections'], cliEnv());
    expect(listed.stdout).toContain(`unverified server: ${new URL(upstream.url).host}`);
  });

  it('prints the request to hand to an agent', async () => {
    const run = await runPortcullisHere(['import', '--help-prompt'], cliEnv());
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('mcpServers');
  });

  it('disconnects: connection, credentials, grants and pinned tools go; the audit log stays', async () => {
    // A connection of its own, imported as the test above imports one.
    expect((await importSnippet('weather-gone')).code).toBe(0);
    const ctx = gateway.running.gateway.operator('test');
    const workspace = (await ctx.store.workspaces.byName('default'))!;
    const connection = (await ctx.store.connections.byName(workspace.id, 'weather-gone'))!;
    await createAgent(ctx, { workspace: 'default', name: 'reader' });
    await grant(ctx, {
      workspace: 'default',
      agent: 'reader',
      connection: 'weather-gone',
      scope: 'all',
    });
    const done = await disconnect(ctx, { workspace: 'default', connection: 'weather-gone' });
    expect(done.connection).toBe('weather-gone');
    expect(await ctx.store.connections.byId(workspace.id, connection.id)).toBeUndefined();
    expect(await ctx.store.credentials.forConnection(connection.id, null)).toEqual([]);
    expect(
      (await ctx.store.grants.list(workspace.id)).filter((g) => g.connectionId === connection.id),
    ).toEqual([]);
    expect(await ctx.store.remoteTools.forConnection(connection.id)).toEqual([]);
    expect(await ctx.store.remoteEndpoints.byConnection(connection.id)).toBeUndefined();
    const history = await ctx.store.audit.query({ connectionId: connection.id, ascending: true });
    expect(history.map((e) => e.action)).toEqual(
      expect.arrayContaining(['connection.create', 'connection.remove']),
    );
    expect(
      await reasonOf(disconnect(ctx, { workspace: 'default', connection: 'weather-gone' })),
    ).toEqual({ code: 'not_found', field: 'connection' });
  });
});
