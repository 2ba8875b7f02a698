/**
 * MCP Apps through the gateway, against the ext-apps example servers from
 * npm connected by URL: a tool's `_meta.ui` and its `ui://` resource reach an
 * SDK v2 agent on `/mcp` (the resource renamed under its connection, read
 * back from the right one) and on `/mcp/c/<connection>`, on both wires.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../runtime/core/operator/context.ts';
import { startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { type AppServer, startAppServer } from '../../../support/remote/app-server.ts';
import { connectReviewed } from '../../../support/remote/reviewed-connection.ts';

let gateway: TestGateway;
let ctx: OperatorContext;
let key: string;
let vanilla: AppServer;
let preact: AppServer;

const UI = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';

beforeAll(async () => {
  [gateway, vanilla, preact] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startAppServer('server-basic-vanillajs'),
    startAppServer('server-basic-preact'),
  ]);
  ctx = gateway.running.gateway.operator('test');
  ({ key } = await createAgent(ctx, { workspace: 'default', name: 'viewer' }));
  await connectReviewed(ctx, { url: vanilla.url, name: 'vanilla' }, 'viewer');
  await connectReviewed(ctx, { url: preact.url, name: 'preact' }, 'viewer');
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await vanilla?.close();
  await preact?.close();
});

async function agent(era: 'legacy' | 'modern', path: string, apps = true): Promise<Client> {
  const client = new Client(
    { name: `viewer-${era}`, version: '1.0.0' },
    {
      capabilities: apps ? { extensions: { [UI]: { mimeTypes: [MIME] } } } : {},
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

describe.each(['legacy', 'modern'] as const)('an app through the gateway, %s wire', (era) => {
  it('on /mcp/c/<connection>: the tool names its app, and the app reads as the server serves it', async () => {
    const client = await agent(era, '/mcp/c/vanilla');
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === 'get-time');
      expect(tool).toBeDefined();
      const read = await client.readResource({ uri: 'ui://get-time/mcp-app.html' });
      expect(read.contents).toEqual([
        { uri: 'ui://get-time/mcp-app.html', mimeType: MIME, text: await vanilla.html() },
      ]);
    } finally {
      await client.close();
    }
  });
});
