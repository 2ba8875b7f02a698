/**
 * The MCP SDK v2 client (@modelcontextprotocol/client 2.4.0) against the
 * endpoint, once per era: the legacy handshake (2025-11-25) and the modern
 * stateless wire (pinned to 2026-07-28). Progress arrives before the result,
 * a tool that needs input gets it through the client's own handler (server
 * requests on the legacy wire, `input_required` on the modern one), and list
 * changes reach a listening client.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { McpEra } from '../../../../../runtime/core/mcp/wire/protocol-version.ts';
import { FIXTURE_AGENTS } from '../../../../support/mcp/fixture-backend.ts';
import { type FixtureServer, startFixtureServer } from '../../../../support/mcp/fixture-server.ts';

let server: FixtureServer;

beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(() => server.close());

async function connect(era: McpEra): Promise<Client> {
  const client = new Client(
    { name: 'portcullis-test', version: '1.0.0' },
    {
      capabilities: { elicitation: {} },
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: { name: 'Ada' },
  }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { Authorization: `Bearer ${FIXTURE_AGENTS.alice.key}` } },
    }),
  );
  return client;
}

describe.each<McpEra>(['legacy', 'modern'])('the SDK v2 client on the %s wire', (era) => {
  let client: Client;

  beforeAll(async () => {
    client = await connect(era);
  });
  afterAll(() => client.close());

  it('lands on the era it asked for', () => {
    expect(client.getProtocolEra()).toBe(era);
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
  });

  it('lists and calls tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('echo');
    const result = await client.callTool({ name: 'echo', arguments: { era } });
    expect(result.structuredContent).toEqual({ agentId: 'agt_alice', arguments: { era } });
  });

  it('receives every progress notification before the result', async () => {
    const seen: string[] = [];
    const result = await client.callTool(
      { name: 'count', arguments: { steps: 3 } },
      { onprogress: (progress) => seen.push(`progress ${progress.progress}/${progress.total}`) },
    );
    seen.push('result');
    expect(seen).toEqual(['progress 1/3', 'progress 2/3', 'progress 3/3', 'result']);
    expect(result.content).toEqual([{ type: 'text', text: 'counted to 3' }]);
  });

  it('gives a tool the input it asks for through its elicitation handler', async () => {
    const result = await client.callTool({ name: 'ask', arguments: { nonce: era } });
    expect(result.structuredContent).toEqual({ greeted: 'Ada', state: { nonce: era } });
  });

  it('hears that the tool list changed', async () => {
    const changed = vi.fn();
    client.setNotificationHandler('notifications/tools/list_changed', changed);
    const subscription =
      era === 'modern' ? await client.listen({ toolsListChanged: true }) : undefined;
    try {
      await vi.waitFor(() => expect(server.backend.watchers.size).toBeGreaterThan(0));
      server.backend.announceChange();
      await vi.waitFor(() => expect(changed).toHaveBeenCalled());
    } finally {
      await subscription?.close();
    }
  });
});
