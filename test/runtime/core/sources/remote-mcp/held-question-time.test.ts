/**
 * The time an agent takes to answer a remote server's question is the
 * agent's, not the server's: a 2025 server holding its call's event stream
 * open while a person fills in a form is not cut off by the upstream
 * deadline (`PORTCULLIS_UPSTREAM_DEADLINE_MS`), which counts the server's
 * time only. Real SDK v2 server and client; the agent answers after the
 * whole deadline has passed.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.ts';
import { connectReviewed } from '../../../../support/remote/reviewed-connection.ts';
import { startUpstream, type Upstream } from '../../../../support/remote/upstream-servers.ts';

const DEADLINE_MS = 1_000;

let gateway: TestGateway;
let upstream: Upstream;
let key: string;

beforeAll(async () => {
  gateway = await startTestGateway({
    environment: {
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
      PORTCULLIS_UPSTREAM_DEADLINE_MS: String(DEADLINE_MS),
    },
  });
  const ctx = gateway.running.gateway.operator('test');
  ({ key } = await createAgent(ctx, { workspace: 'default', name: 'slow' }));
  upstream = await startUpstream('stateful', { askingTools: true });
  await connectReviewed(ctx, { url: upstream.url, name: 'asks' }, 'slow');
});
afterAll(async () => {
  await upstream?.close();
  await gateway?.close();
});

it.each(['legacy', 'modern'] as const)(
  'a %s agent that answers after the upstream deadline still gets the result',
  async (era) => {
    const client = new Client(
      { name: `slow-${era}`, version: '1.0.0' },
      {
        capabilities: { elicitation: { form: {} } },
        ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
      },
    );
    let asked = 0;
    client.setRequestHandler('elicitation/create', async () => {
      asked++;
      // Longer than the whole deadline: a person reading the form.
      await new Promise((resolve) => setTimeout(resolve, DEADLINE_MS * 1.6));
      return { action: 'accept', content: { name: 'Grace' } };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    try {
      const result = await client.callTool({ name: 'asks__ask_name', arguments: {} });
      expect(asked).toBe(1);
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect((result.content as { text: string }[])[0]?.text).toBe('Hello, Grace!');
    } finally {
      await client.close();
    }
  },
);
