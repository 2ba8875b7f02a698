/**
 * An MCP App's page is reviewed like a tool contract, against the ext-apps
 * vanilla example from npm (its HTML changed upstream) and a hostile app
 * server: the page's content hash, csp and permissions are pinned; a page
 * changed upstream is refused as it is read and, once discovered, waits for
 * review while its tool is served without `_meta.ui` (never refused); the
 * review shows what the page may reach and asks for, and flags a hostile
 * one; an operator turns a connection's apps off and on.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeActions, listActions } from '../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import { setConnectionApps } from '../../../../runtime/core/operator/connection-apps.ts';
import type { OperatorContext } from '../../../../runtime/core/operator/context.ts';
import { connectUrl } from '../../../../runtime/core/operator/remote-connections.ts';
import { refreshRemote } from '../../../../runtime/core/operator/remote-refresh.ts';
import { startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { type AppServer, startAppServer } from '../../../support/remote/app-server.ts';
import { type HostileApp, startHostileApp } from '../../../support/remote/hostile-app.ts';
import { connectReviewed } from '../../../support/remote/reviewed-connection.ts';
import { runPortcullisHere } from '../../../support/run-cli.ts';

let gateway: TestGateway;
let ctx: OperatorContext;
let key: string;
let hostile: HostileApp;
const opened: Array<{ server: AppServer; client: Client }> = [];

const workspace = 'default';
const UI = 'io.modelcontextprotocol/ui';
const PAGE = 'ui://get-time/mcp-app.html';
const PAGE_KEY = `resource:${PAGE}`;

beforeAll(async () => {
  [gateway, hostile] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startHostileApp(),
  ]);
  ctx = gateway.running.gateway.operator('test');
  ({ key } = await createAgent(ctx, { workspace, name: 'viewer' }));
}, 60_000);
afterAll(async () => {
  for (const { server, client } of opened) {
    await client.close();
    await server.close();
  }
  await gateway?.close();
  await hostile?.close();
});

let made = 0;

/** Each test its own vanilla example server, connected and reviewed, and an agent on its endpoint. */
async function clock() {
  const name = `clock-${++made}`;
  const server = await startAppServer('server-basic-vanillajs');
  await connectReviewed(ctx, { url: server.url, name }, 'viewer');
  const client = new Client(
    { name: 'viewer', version: '1.0.0' },
    { capabilities: { extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp/c/${name}`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  opened.push({ server, client });
  return {
    name,
    server,
    client,
    toolMeta: async () =>
      (await client.listTools()).tools.find((t) => t.name === 'get-time')?._meta,
    pageView: async () =>
      (await listActions(ctx, { workspace, connection: name })).find((a) => a.action === PAGE_KEY),
  };
}

/** The gateway's code in a refused read's JSON-RPC error data. */
async function refusedWith(request: Promise<unknown>): Promise<string | undefined> {
  const error = (await request.then(
    () => undefined,
    (e: unknown) => e,
  )) as { data?: { code?: string } } | undefined;
  return error?.data?.code;
}

describe('an app page reviewed like a tool contract', () => {
  it('pins the page: its sha256, no origins, no permissions; the tool names it', async () => {
    const { pageView, toolMeta } = await clock();
    const view = await pageView();
    expect(view?.review).toBe('reviewed');
    expect(view?.app).toEqual({
      contentSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      mimeType: 'text/html;profile=mcp-app',
      csp: {},
      permissions: [],
    });
    expect(view?.flags).toBeUndefined();
    expect((await toolMeta())?.ui).toEqual({ resourceUri: PAGE });
  });

  it('HTML changed upstream: the read is refused, the change waits for review, the tool is served without its app', async () => {
    const { name, server, client, pageView, toolMeta } = await clock();
    const before = (await pageView())!.app!.contentSha256;
    await server.setHtml(`${await server.html()}<!-- changed -->`);
    await expect(refusedWith(client.readResource({ uri: PAGE }))).resolves.toBe('contract_changed');
    await refreshRemote(ctx, { workspace, connection: name });
    const view = await pageView();
    expect(view?.review).toBe('changed');
    expect(view?.app?.contentSha256).not.toBe(before);
    expect(view?.changes?.map((c) => c.field)).toContain('app');
    // Served, not refused: the tool without its app.
    expect(await toolMeta()).toBeUndefined();
    const called = await client.callTool({ name: 'get-time', arguments: {} });
    expect(called.isError).toBeFalsy();
    expect((await client.listResources()).resources.map((r) => r.uri)).not.toContain(PAGE);

    await changeActions(ctx, 'review', { workspace, connection: name, actions: [PAGE_KEY] });
    expect((await toolMeta())?.ui).toEqual({ resourceUri: PAGE });
    const read = await client.readResource({ uri: PAGE });
    expect(read.contents[0]).toMatchObject({ text: await server.html() });
  });

  it("an operator turns the connection's apps off, and on again", async () => {
    const { name, client, toolMeta } = await clock();
    await setConnectionApps(ctx, { workspace, connection: name, apps: 'off' });
    expect(await toolMeta()).toBeUndefined();
    await expect(refusedWith(client.readResource({ uri: PAGE }))).resolves.toBe('action_disabled');
    expect((await client.listResources()).resources.map((r) => r.uri)).not.toContain(PAGE);
    await setConnectionApps(ctx, { workspace, connection: name, apps: 'on' });
    expect((await toolMeta())?.ui).toEqual({ resourceUri: PAGE });
  });

  it('flags a hostile app in review, and shows what it may reach and asks for', async () => {
    await connectReviewed(ctx, { url: hostile.url, name: 'board' }, 'viewer');
    const view = (await listActions(ctx, { workspace, connection: 'board' })).find(
      (a) => a.action === 'resource:ui://board/view.html',
    );
    expect(view?.app).toMatchObject({
      csp: { connectDomains: ['*'], resourceDomains: ['https://cdn.evil.example'] },
      permissions: ['camera', 'microphone', 'geolocation', 'clipboardWrite'],
    });
    expect(view?.flags?.map((f) => `${f.rule} ${f.field}`)).toEqual([
      'app-reaches-out csp /connectDomains/0',
      'app-reaches-out csp /resourceDomains/0',
      'app-reaches-out permissions',
    ]);
  });

  it('portcullis connection review shows the origins and permissions plainly', async () => {
    await connectUrl(ctx, { workspace, url: hostile.url, name: 'fresh-board' });
    const { code, stdout } = await runPortcullisHere(['connection', 'review', 'fresh-board'], {
      PORTCULLIS_DATA_DIR: gateway.dataDir,
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
    });
    expect(code).toBe(0);
    expect(stdout).toContain('MCP App:');
    expect(stdout).toContain('may reach: connect to *; load from https://cdn.evil.example');
    expect(stdout).toContain('asks for: camera, microphone, geolocation, clipboardWrite');
    expect(stdout).toContain('[app-reaches-out] MCP App reaches beyond its server');
  });
});
