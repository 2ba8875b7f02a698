/**
 * A server that offers both wires, recorded at 2026-07-28 (it answers
 * `server/discover`), loses nothing for a 2025-11-25 caller through the
 * gateway: only its 2025-11-25 wire can ask the caller mid-call and take
 * resource subscriptions (its stateless 2026-07-28 answer says Method not
 * found to a question and declares no `resources.subscribe`, as the
 * conformance suite's reference server does). A real SDK v2 client of
 * 2025-11-25, with sampling and elicitation, on `/mcp/c/<connection>` and on
 * `/mcp`, gets the answers its own handlers gave and hears a resource update.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.ts';
import {
  BOARD_URI,
  type DualEraUpstream,
  startDualEraUpstream,
} from '../../../../support/remote/dual-era-upstream.ts';
import { connectReviewed } from '../../../../support/remote/reviewed-connection.ts';

let gateway: TestGateway;
let ctx: OperatorContext;
let key: string;
let upstream: DualEraUpstream;

beforeAll(async () => {
  gateway = await startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } });
  ctx = gateway.running.gateway.operator('test');
  ({ key } = await createAgent(ctx, { workspace: 'default', name: 'dual' }));
  upstream = await startDualEraUpstream();
  await connectReviewed(ctx, { url: upstream.url, name: 'dual' }, 'dual');
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** A 2025-11-25 SDK v2 client on `path` that answers sampling and elicitation itself. */
async function legacyAgent(path: string): Promise<{ client: Client; updates: string[] }> {
  const client = new Client(
    { name: 'agent-2025', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} }, sampling: {} } },
  );
  client.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: { name: 'Ada' },
  }));
  client.setRequestHandler('sampling/createMessage', async () => ({
    role: 'assistant',
    content: { type: 'text', text: 'Paris' },
    model: 'test-model',
  }));
  const updates: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    updates.push(notification.params.uri);
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  expect(client.getProtocolEra()).toBe('legacy');
  return { client, updates };
}

function textOf(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as { text?: string }[];
  return first?.text ?? '';
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe.each([
  ['the connection view', '/mcp/c/dual', (name: string) => name, BOARD_URI],
  ['the namespaced view', '/mcp', (name: string) => `dual__${name}`, `dual+${BOARD_URI}`],
])('a 2025-11-25 caller of a server recorded at 2026-07-28, on %s', (_view, path, tool, uri) => {
  let agent: { client: Client; updates: string[] };
  beforeAll(async () => {
    agent = await legacyAgent(path);
  });
  afterAll(() => agent?.client.close());

  it('is asked for sampling mid-call and its answer reaches the server', async () => {
    const result = await agent.client.callTool({ name: tool('ask_model'), arguments: {} });
    expect(textOf(result)).toBe('the model said: Paris');
    expect(result.isError).toBeFalsy();
  });

  it('is asked for elicitation mid-call and its answer reaches the server', async () => {
    const result = await agent.client.callTool({ name: tool('ask_name'), arguments: {} });
    expect(textOf(result)).toBe('Hello, Ada!');
    expect(result.isError).toBeFalsy();
  });

  it('subscribes to a resource the server takes subscriptions to, and hears its update', async () => {
    expect(agent.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    await agent.client.subscribeResource({ uri });
    expect(upstream.subscribed).toContain(BOARD_URI);
    // The client opens its standalone stream on its own: wait until an update gets through.
    await until(() => {
      upstream.updateResource(BOARD_URI);
      return agent.updates.length > 0;
    }, 'the update');
    expect(new Set(agent.updates)).toEqual(new Set([uri]));
  });
});
