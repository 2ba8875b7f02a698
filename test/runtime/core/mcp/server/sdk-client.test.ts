/**
 * The MCP SDK's own client against the endpoint: the handshake, tools, errors,
 * and many sessions at once, each of which must get only its own replies.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, LATEST_PROTOCOL_VERSION, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_AGENTS, type FixtureAgent } from '../../../../support/mcp/fixture-backend.ts';
import {
  type FixtureMount,
  type FixtureServer,
  startFixtureServer,
} from '../../../../support/mcp/fixture-server.ts';

interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

async function connect(server: FixtureServer, agent: FixtureAgent | null): Promise<Connected> {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit:
      agent === null ? {} : { headers: { Authorization: `Bearer ${FIXTURE_AGENTS[agent].key}` } },
  });
  const client = new Client({ name: 'portcullis-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

async function disconnect({ client, transport }: Connected): Promise<void> {
  await transport.terminateSession();
  await client.close();
}

describe.each<FixtureMount>(['node', 'express'])('the SDK client, endpoint on %s', (mount) => {
  let server: FixtureServer;
  let alice: Connected;

  beforeAll(async () => {
    server = await startFixtureServer({ mount });
    alice = await connect(server, 'alice');
  });
  afterAll(async () => {
    await disconnect(alice);
    await server.close();
  });

  it('completes the handshake at the latest revision', () => {
    expect(alice.transport.sessionId).toMatch(/^[\x21-\x7e]+$/);
    expect(alice.transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(alice.client.getServerVersion()).toEqual({
      name: 'portcullis-fixture',
      version: '0.0.0',
    });
    expect(alice.client.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      prompts: {},
      resources: {},
      logging: {},
    });
  });

  it('pings', async () => {
    expect(await alice.client.ping()).toEqual({});
  });

  it('lists the tools', async () => {
    const { tools } = await alice.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'echo',
      'refuse',
      'crash',
      'hold',
      'count',
      'ask',
    ]);
  });

  it('calls a tool', async () => {
    const result = await alice.client.callTool({ name: 'echo', arguments: { word: 'hello' } });
    expect(result.structuredContent).toEqual({
      agentId: 'agt_alice',
      arguments: { word: 'hello' },
    });
  });

  it('gets a refusal as an isError result with its reason code', async () => {
    const result = await alice.client.callTool({ name: 'refuse', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'not_granted' } });
  });

  it('gets an unknown tool as an isError result', async () => {
    const result = await alice.client.callTool({ name: 'no_such_tool', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'tool_unknown' } });
  });

  it('gets a crash as an internal error', async () => {
    const call = alice.client.callTool({ name: 'crash', arguments: {} });
    await expect(call).rejects.toBeInstanceOf(McpError);
    await expect(call).rejects.toMatchObject({ code: ErrorCode.InternalError });
  });

  it('cannot connect without a credential', async () => {
    await expect(connect(server, null)).rejects.toMatchObject({ code: 401 });
  });

  it('ends its session on terminateSession', async () => {
    const bob = await connect(server, 'bob');
    const before = server.endpoint.sessionCount;
    await disconnect(bob);
    expect(server.endpoint.sessionCount).toBe(before - 1);
  });

  it('gives 32 concurrent sessions only their own replies', async () => {
    const sessions = 32;
    const callsPerSession = 8;
    const agents: FixtureAgent[] = ['alice', 'bob'];
    const clients = await Promise.all(
      Array.from({ length: sessions }, (_, s) => connect(server, agents[s % 2]!)),
    );
    try {
      const outcomes = await Promise.all(
        clients.map(({ client }, s) =>
          Promise.all(
            Array.from({ length: callsPerSession }, async (_, c) => {
              const args = { session: s, call: c, delayMs: Math.floor(Math.random() * 15) };
              const result = await client.callTool({ name: 'echo', arguments: args });
              return { s, c, args, result };
            }),
          ),
        ),
      );
      const seen = outcomes.flat();
      expect(seen).toHaveLength(sessions * callsPerSession);
      for (const { s, args, result } of seen) {
        expect(result.structuredContent).toEqual({
          agentId: FIXTURE_AGENTS[agents[s % 2]!].principal.agentId,
          arguments: args,
        });
      }
    } finally {
      await Promise.all(clients.map(disconnect));
    }
  });
});
