/**
 * The real gateway's /mcp declares every capability whose methods it
 * answers, the same on both wires: a 2026-07-28 SDK v2 client's
 * `server/discover` and a 2025-11-25 one's `initialize` declare the same
 * capabilities, and each declared list is answered (an agent with no grant
 * yet lists nothing, but is answered). The conformance suite's
 * `sep-2575-server-declares-prompts-in-discover` asks this of prompts.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpEra } from '../../../../../runtime/core/mcp/wire/protocol-version.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.ts';

let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  ({ key } = await createAgent(gateway.running.gateway.operator('test'), {
    workspace: 'default',
    name: 'declared',
  }));
});
afterAll(() => gateway?.close());

async function agent(era: McpEra): Promise<Client> {
  const client = new Client(
    { name: `agent-${era}`, version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  expect(client.getProtocolEra()).toBe(era);
  return client;
}

describe('what /mcp declares', () => {
  it('declares on 2026-07-28 what it declares on 2025-11-25, prompts and resources among it', async () => {
    const [modern, legacy] = [await agent('modern'), await agent('legacy')];
    try {
      const discovered = modern.getServerCapabilities();
      expect(discovered).toMatchObject({ tools: {}, prompts: {}, resources: {} });
      expect(discovered).toEqual(legacy.getServerCapabilities());
    } finally {
      await modern.close();
      await legacy.close();
    }
  });

  it.each<McpEra>(['modern', 'legacy'])('answers each list it declares (%s)', async (era) => {
    const client = await agent(era);
    try {
      const declared = client.getServerCapabilities() ?? {};
      expect((await client.listPrompts()).prompts).toEqual([]);
      expect((await client.listResources()).resources).toEqual([]);
      expect(declared.prompts).toBeDefined();
      expect(declared.resources).toBeDefined();
    } finally {
      await client.close();
    }
  });
});
