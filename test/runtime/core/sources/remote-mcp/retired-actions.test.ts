/**
 * An action its server stopped offering, retired at the next discovery, is
 * refused by its name as `action_retired` (never as unknown): a tool called,
 * a prompt got, a resource read, on `/mcp` and on `/mcp/c/<connection>`, by
 * a 2025-11-25 and a 2026-07-28 agent (real SDK v2 clients against a real
 * SDK v2 server on loopback).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeActions } from '../../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import { refreshRemote } from '../../../../../runtime/core/operator/remote-refresh.ts';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.ts';
import { startUpstream, type Upstream } from '../../../../support/remote/upstream-servers.ts';

const NAME = 'fading';

let gateway: TestGateway;
let ctx: OperatorContext;
let upstream: Upstream;
let key: string;
const clients: Client[] = [];

beforeAll(async () => {
  upstream = await startUpstream('stateful', { resourcesAndPrompts: true });
  gateway = await startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } });
  ctx = gateway.running.gateway.operator('test');
  await connectUrl(ctx, { workspace: 'default', url: upstream.url, name: NAME });
  await changeActions(ctx, 'review', { workspace: 'default', connection: NAME, all: true });
  ({ key } = await createAgent(ctx, { workspace: 'default', name: 'agent' }));
  await grant(ctx, { workspace: 'default', agent: 'agent', connection: NAME, scope: 'all' });
  upstream.drop('delete_item');
  upstream.drop('prompt:greet');
  upstream.drop('resource:memo://welcome');
  await refreshRemote(ctx, { workspace: 'default', connection: NAME });
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await gateway?.close();
  await upstream?.close();
});

async function agentOn(path: string, era: 'legacy' | 'modern'): Promise<Client> {
  const client = new Client(
    { name: `agent-${era}`, version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  clients.push(client);
  return client;
}

/** The reason code a refused get or read carries in its JSON-RPC error's data. */
async function refusal(request: Promise<unknown>): Promise<string | undefined> {
  const error = (await request.then(
    () => undefined,
    (e: unknown) => e,
  )) as { data?: { code?: string }; message?: string } | undefined;
  if (error?.data?.code) return error.data.code;
  const body = error?.message?.match(/\{"jsonrpc".*\}$/)?.[0];
  return body
    ? (JSON.parse(body) as { error: { data?: { code?: string } } }).error.data?.code
    : undefined;
}

describe.each([
  ['/mcp', 'legacy', `${NAME}__`, `${NAME}+`],
  ['/mcp', 'modern', `${NAME}__`, `${NAME}+`],
  [`/mcp/c/${NAME}`, 'legacy', '', ''],
  [`/mcp/c/${NAME}`, 'modern', '', ''],
] as const)('on %s, a %s agent', (path, era, prefix, uriPrefix) => {
  let client: Client;
  beforeAll(async () => {
    client = await agentOn(path, era);
  });

  it('is told a retired tool is retired when it calls it', async () => {
    const reply = (await client.callTool({
      name: `${prefix}delete_item`,
      arguments: { id: '1' },
    })) as { isError?: boolean; structuredContent?: { error?: { code?: string } } };
    expect(reply.isError).toBe(true);
    expect(reply.structuredContent?.error?.code).toBe('action_retired');
    // A name that never was a tool is still unknown.
    const unknown = (await client.callTool({ name: `${prefix}never_was`, arguments: {} })) as {
      structuredContent?: { error?: { code?: string } };
    };
    expect(unknown.structuredContent?.error?.code).toBe('tool_unknown');
  });

  it('is told a retired prompt and a retired resource are retired', async () => {
    expect(
      await refusal(client.getPrompt({ name: `${prefix}greet`, arguments: { who: 'Ada' } })),
    ).toBe('action_retired');
    expect(await refusal(client.readResource({ uri: `${uriPrefix}memo://welcome` }))).toBe(
      'action_retired',
    );
  });
});
