/**
 * MCP Apps through the gateway, against the ext-apps example servers from
 * npm connected by URL: a tool's `_meta.ui` and its `ui://` resource reach an
 * SDK v2 agent on `/mcp` (the resource renamed under its connection, read
 * back from the right one) and on `/mcp/c/<connection>`, on both wires.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../runtime/core/operator/context.ts';
import { startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import {
  appHost,
  APP_MIME as MIME,
  APPS_EXTENSION as UI,
} from '../../../support/remote/app-host.ts';
import { type AppServer, startAppServer } from '../../../support/remote/app-server.ts';
import { type HostileApp, startHostileApp } from '../../../support/remote/hostile-app.ts';
import { connectReviewed } from '../../../support/remote/reviewed-connection.ts';

let gateway: TestGateway;
let ctx: OperatorContext;
let key: string;
let vanilla: AppServer;
let preact: AppServer;
let hostile: HostileApp;

beforeAll(async () => {
  [gateway, vanilla, preact, hostile] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startAppServer('server-basic-vanillajs'),
    startAppServer('server-basic-preact'),
    startHostileApp(),
  ]);
  ctx = gateway.running.gateway.operator('test');
  ({ key } = await createAgent(ctx, { workspace: 'default', name: 'viewer' }));
  await connectReviewed(ctx, { url: vanilla.url, name: 'vanilla' }, 'viewer');
  await connectReviewed(ctx, { url: preact.url, name: 'preact' }, 'viewer');
  await connectReviewed(ctx, { url: hostile.url, name: 'board' }, 'viewer');
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await vanilla?.close();
  await preact?.close();
  await hostile?.close();
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
    "cache hints: private, never longer than ours, lowered to the server's",
    async () => {
      const client = await agent(era, '/mcp/c/board');
      try {
        const tools = await client.listTools();
        expect([tools.ttlMs, tools.cacheScope]).toEqual([60_000, 'private']);
        // The server's own resources/list says 0 (SDK v2): a list of its lowers ours to that.
        const list = await client.listResources();
        expect([list.ttlMs, list.cacheScope]).toEqual([0, 'private']);
        // The server's callback says an hour, for anyone: the gateway decided it for this agent,
        // and keeps it to a minute at most (SDK v2 2.4 does not put the callback's ttlMs on the wire).
        const read = await client.readResource({ uri: 'ui://board/view.html' });
        expect(read.cacheScope).toBe('private');
        expect(read.ttlMs).toBeLessThanOrEqual(60_000);
      } finally {
        await client.close();
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
