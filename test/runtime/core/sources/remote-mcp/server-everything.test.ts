/**
 * `@modelcontextprotocol/server-everything` (the reference server of the MCP
 * project, on SDK 1.x, Streamable HTTP in a child process) as a real
 * upstream: connected by its URL, its tools discovered and pinned, listed to
 * an agent beside nothing else on /mcp/c/<connection>, called through the
 * gateway (echo, get-sum), with its progress relayed while the call runs.
 * (Its resources and prompts wait for their forwarding, not on this build.)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeActions } from '../../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import {
  connectUrl,
  type RemoteConnectResult,
} from '../../../../../runtime/core/operator/remote-connections.ts';
import { ROOT } from '../../../../support/fixtures.ts';
import { freePort } from '../../../../support/free-port.ts';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.ts';

let gateway: TestGateway;
let ctx: OperatorContext;
let everything: ChildProcess;
let url: string;
let connected: RemoteConnectResult;
let client: Client;

async function startEverything(): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js'),
      'streamableHttp',
    ],
    { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let said = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      if (said.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${said}`)));
  });
  return { child, url: `http://127.0.0.1:${port}/mcp` };
}

beforeAll(async () => {
  let started: Awaited<ReturnType<typeof startEverything>>;
  [gateway, started] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startEverything(),
  ]);
  everything = started.child;
  url = started.url;
  ctx = gateway.running.gateway.operator('test');
  connected = await connectUrl(ctx, { workspace: 'default', url, name: 'everything' });
  await changeActions(ctx, 'review', { workspace: 'default', connection: 'everything', all: true });
  await changeActions(ctx, 'enable', {
    workspace: 'default',
    connection: 'everything',
    actions: ['echo', 'get-sum', 'trigger-long-running-operation'],
  });
  const { key } = await createAgent(ctx, { workspace: 'default', name: 'explorer' });
  await grant(ctx, {
    workspace: 'default',
    agent: 'explorer',
    connection: 'everything',
    scope: 'all',
  });
  client = new Client({ name: 'portcullis-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp/c/everything`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
}, 60_000);
afterAll(async () => {
  await client?.close();
  await gateway?.close();
  everything?.kill();
});

describe('server-everything as a remote MCP connection', () => {
  it('is discovered: a 2025 session, its server info, its tools pinned with their classes', async () => {
    expect(connected.next).toBe('review');
    expect(connected.endpoint).toMatchObject({
      revision: '2025-11-25',
      transport: 'streamable-http',
      serverInfo: { name: expect.stringContaining('everything') },
    });
    expect(connected.tools?.tools).toEqual(
      expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']),
    );
    const tools = await ctx.store.remoteTools.forConnection(connected.connection.id);
    expect(tools.find((t) => t.name === 'trigger-long-running-operation')?.classificationRule).toBe(
      'annotation:readOnlyHint',
    );
  });

  it('lists its enabled tools under their own names on /mcp/c/<connection>', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']),
    );
  });

  it('forwards calls and their results', async () => {
    const echoed = await client.callTool({ name: 'echo', arguments: { message: 'through' } });
    expect(echoed.content).toEqual([{ type: 'text', text: 'Echo: through' }]);
    const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
    expect(JSON.stringify(sum.content)).toContain('5');
  });

  it('relays its progress while the call runs', async () => {
    const seen: string[] = [];
    const result = await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } },
      undefined,
      { onprogress: (p) => seen.push(`${p.progress}/${p.total}`), timeout: 10_000 },
    );
    expect(seen).toEqual(['1/2', '2/2']);
    expect(JSON.stringify(result.content)).toContain('Long running operation completed');
  });
});
