/**
 * MCP Apps through the gateway, against the ext-apps example servers from
 * npm connected by URL: a tool's `_meta.ui` and its `ui://` resource reach an
 * SDK v2 agent on `/mcp` (the resource renamed under its connection, read
 * back from the right one) and on `/mcp/c/<connection>`, on both wires.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_LIST_TTL_MS } from '../../../../runtime/core/mcp/server/mcp-methods.ts';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../runtime/core/operator/context.ts';
import { startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import {
  appHost,
  APP_MIME as MIME,
  APPS_EXTENSION as UI,
} from '../../../support/remote/app-host.ts';
import { type AppServer, startAppServer } from '../../../support/remote/app-server.ts';
import {
  HOSTILE_PAGE,
  type HostileApp,
  RULES,
  RULES_TTL_MS,
  startHostileApp,
} from '../../../support/remote/hostile-app.ts';
import { connectReviewed } from '../../../support/remote/reviewed-connection.ts';

let gateway: TestGateway;
let ctx: OperatorContext;
let key: string;
let vanilla: AppServer;
let preact: AppServer;
let hostile: HostileApp;
/** The same server, its resources list asking five seconds. */
let quick: HostileApp;

beforeAll(async () => {
  [gateway, vanilla, preact, hostile, quick] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startAppServer('server-basic-vanillajs'),
    startAppServer('server-basic-preact'),
    startHostileApp(),
    startHostileApp({ listTtlMs: RULES_TTL_MS }),
  ]);
  ctx = gateway.running.gateway.operator('test');
  ({ key } = await createAgent(ctx, { workspace: 'default', name: 'viewer' }));
  await connectReviewed(ctx, { url: vanilla.url, name: 'vanilla' }, 'viewer');
  await connectReviewed(ctx, { url: preact.url, name: 'preact' }, 'viewer');
  await connectReviewed(ctx, { url: hostile.url, name: 'board' }, 'viewer');
  await connectReviewed(ctx, { url: quick.url, name: 'quick' }, 'viewer');
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await vanilla?.close();
  await preact?.close();
  await hostile?.close();
  await quick?.close();
});

const agent = (era: 'legacy' | 'modern', path: string, apps = true): Promise<Client> =>
  appHost(`${gateway.url}${path}`, key, { era, apps });

const PAGE = 'ui://get-time/mcp-app.html';

describe.each(['legacy', 'modern'] as const)('an app through the gateway, %s wire', (era) => {
  it("on /mcp/c/<connection>: the tool names its app under the server's uri, and the page reads as the server serves it", async () => {
    const client = await agent(era, '/mcp/c/vanilla');
    try {
      expect(client.getServerCapabilities()?.extensions?.[UI]).toEqual({ mimeTypes: [MIME] });
      const tool = (await client.listTools()).tools.find((t) => t.name === 'get-time');
      expect(tool?._meta).toEqual({ ui: { resourceUri: PAGE }, 'ui/resourceUri': PAGE });
      const listed = (await client.listResources()).resources.map((r) => r.uri);
      expect(listed).toContain(PAGE);
      const read = await client.readResource({ uri: PAGE });
      expect(read.contents).toEqual([{ uri: PAGE, mimeType: MIME, text: await vanilla.html() }]);
      const called = await client.callTool({ name: 'get-time', arguments: {} });
      expect(called.structuredContent).toEqual({ time: expect.any(String) });
    } finally {
      await client.close();
    }
  });

  it("on /mcp: each connection's page under a name of its own, read back from that connection", async () => {
    const client = await agent(era, '/mcp');
    try {
      expect(client.getServerCapabilities()?.extensions?.[UI]).toEqual({ mimeTypes: [MIME] });
      const tools = (await client.listTools()).tools;
      const vanillaTool = tools.find((t) => t.name === 'vanilla__get-time');
      const preactTool = tools.find((t) => t.name === 'preact__get-time');
      // Both servers name the same page; on /mcp the two cannot meet.
      expect(vanillaTool?._meta?.ui).toEqual({ resourceUri: 'ui://vanilla/get-time/mcp-app.html' });
      expect(preactTool?._meta?.ui).toEqual({ resourceUri: 'ui://preact/get-time/mcp-app.html' });
      const listed = (await client.listResources()).resources.map((r) => r.uri);
      expect(listed).toEqual(
        expect.arrayContaining([
          'ui://vanilla/get-time/mcp-app.html',
          'ui://preact/get-time/mcp-app.html',
        ]),
      );
      for (const [name, server] of [
        ['vanilla', vanilla],
        ['preact', preact],
      ] as const) {
        const uri = `ui://${name}/get-time/mcp-app.html`;
        const read = await client.readResource({ uri });
        expect(read.contents).toEqual([{ uri, mimeType: MIME, text: await server.html() }]);
      }
      expect(await vanilla.html()).not.toBe(await preact.html());
    } finally {
      await client.close();
    }
  });

  it.runIf(era === 'modern')(
    'cache hints: exactly what our governance allows, and private whatever the server said',
    async () => {
      const board = await agent(era, '/mcp/c/board');
      const all = await agent(era, '/mcp');
      try {
        const tools = await board.listTools();
        expect([tools.ttlMs, tools.cacheScope]).toEqual([TOOL_LIST_TTL_MS, 'private']);
        // The server's list asks an hour, for anyone: it gets exactly our cap, and it is
        // narrowed to this agent's grants, so private.
        const list = await board.listResources();
        expect([list.ttlMs, list.cacheScope]).toEqual([TOOL_LIST_TTL_MS, 'private']);
        // A server's list asking five seconds keeps its own; on /mcp, joined with the others
        // (an hour, or nothing said on the 2025 wire), the lowest wins.
        const short = await agent(era, '/mcp/c/quick');
        const shortList = await short.listResources().finally(() => short.close());
        expect([shortList.ttlMs, shortList.cacheScope]).toEqual([RULES_TTL_MS, 'private']);
        const joined = await all.listResources();
        expect([joined.ttlMs, joined.cacheScope]).toEqual([RULES_TTL_MS, 'private']);
        // A read asking an hour gets exactly the cap; one asking five seconds keeps its own.
        const page = await board.readResource({ uri: HOSTILE_PAGE });
        expect([page.ttlMs, page.cacheScope]).toEqual([TOOL_LIST_TTL_MS, 'private']);
        const rules = await board.readResource({ uri: RULES });
        expect([rules.ttlMs, rules.cacheScope]).toEqual([RULES_TTL_MS, 'private']);
        // The same reads on /mcp, under the connection's names.
        const named = await all.readResource({ uri: 'board+board://rules' });
        expect([named.ttlMs, named.cacheScope]).toEqual([RULES_TTL_MS, 'private']);
      } finally {
        await board.close();
        await all.close();
      }
    },
  );

  it.each(['/mcp', '/mcp/c/vanilla'])(
    'on %s, a client that does not declare the extension is served no app: no _meta.ui, no ui:// page listed or read',
    async (path) => {
      const page = path === '/mcp' ? 'ui://vanilla/get-time/mcp-app.html' : PAGE;
      const tool = path === '/mcp' ? 'vanilla__get-time' : 'get-time';
      const plain = await agent(era, path, false);
      const apps = await agent(era, path, true);
      try {
        expect(plain.getServerCapabilities()?.extensions?.[UI]).toBeUndefined();
        const listed = (await plain.listTools()).tools.find((t) => t.name === tool);
        expect(listed).toBeDefined();
        expect(listed?._meta).toBeUndefined();
        const resources = (await plain.listResources()).resources.map((r) => r.uri);
        expect(resources.filter((uri) => uri.startsWith('ui://'))).toEqual([]);
        const refused = await plain.readResource({ uri: page }).then(
          () => undefined,
          (error: { code?: number; data?: unknown }) => error,
        );
        expect(refused?.code).toBe(-32021);
        // The SDK keeps the extension it needs (the wire's data also names the code and field `uri`).
        expect(refused?.data).toEqual({
          requiredCapabilities: { extensions: { [UI]: { mimeTypes: [MIME] } } },
        });
        const [event] = await gateway.running.gateway.store.audit.query({
          action: `resources/read ${page}`,
          limit: 1,
        });
        expect(event).toMatchObject({ decision: 'denied', reason: 'client_capability_missing' });
        // Its tool is still called as any other.
        const called = await plain.callTool({ name: tool, arguments: {} });
        expect(called.structuredContent).toEqual({ time: expect.any(String) });
        // The same agent's client that declares it, at the same revision, gets both.
        const shown = (await apps.listTools()).tools.find((t) => t.name === tool);
        expect(shown?._meta?.ui).toEqual({ resourceUri: page });
        expect((await apps.listResources()).resources.map((r) => r.uri)).toContain(page);
        expect((await apps.readResource({ uri: page })).contents).toHaveLength(1);
      } finally {
        await plain.close();
        await apps.close();
      }
    },
  );
});
