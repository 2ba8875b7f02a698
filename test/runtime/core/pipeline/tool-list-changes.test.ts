/**
 * An agent listening for tool list changes hears of a change the `portcullis`
 * command makes in another process (no shared state between them: the server
 * notices the store's revision move), on either wire, with the SDK v2 client;
 * the list it then reads says what changed. And the trace context a request
 * carries lands in its audit event.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { adminClient, startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { type PrismServer, startPrism } from '../../../support/prism.ts';
import { runPortcullis } from '../../../support/run-cli.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-changes-'));
const env = { PORTCULLIS_DATA_DIR: dataDir };
let prism: PrismServer;
let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  prism = await startPrism('unikraft', 'platform');
  gateway = await startTestGateway({ dataDir, upstreams: { unikraft: prism.url } });
  const admin = adminClient(gateway.url, gateway.adminToken!);
  await admin('POST', '/workspaces/default/connections', {
    provider: 'unikraft',
    credential: 'a-token',
  });
  key = (await admin('POST', '/workspaces/default/agents', { name: 'listener' })).body.key;
  await admin('POST', '/workspaces/default/grants', { agent: 'listener', connection: 'unikraft' });
});

afterAll(async () => {
  await gateway?.close();
  await prism?.stop();
});

async function connect(era: 'legacy' | 'modern'): Promise<Client> {
  const client = new Client(
    { name: 'listener', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

describe.each(['legacy', 'modern'] as const)('list changes on the %s wire', (era) => {
  it('reach a listening agent after `portcullis disable`, and the list no longer has the tool', async () => {
    const client = await connect(era);
    try {
      const before = (await client.listTools()).tools.map((t) => t.name);
      expect(before).toContain('unikraft_get_user');
      const changed = vi.fn();
      client.setNotificationHandler('notifications/tools/list_changed', changed);
      const subscription =
        era === 'modern' ? await client.listen({ toolsListChanged: true }) : undefined;
      // The legacy client opens its standalone stream on its own; give it a moment to be there.
      await vi.waitFor(() => expect(gateway.running.gateway.watch.listening).toBeGreaterThan(0));
      try {
        expect((await runPortcullis(['disable', 'unikraft', 'unikraft_get_user'], env)).code).toBe(
          0,
        );
        await vi.waitFor(() => expect(changed).toHaveBeenCalled(), { timeout: 5_000 });
        const after = (await client.listTools()).tools.map((t) => t.name);
        expect(after).not.toContain('unikraft_get_user');
      } finally {
        await subscription?.close();
        expect((await runPortcullis(['enable', 'unikraft', 'unikraft_get_user'], env)).code).toBe(
          0,
        );
      }
    } finally {
      await client.close();
    }
  });
});

describe('trace context and the audit', () => {
  it('is recorded in the audit event of the call that carried it', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const response = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'unikraft_get_user',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'unikraft_get_user',
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
            traceparent,
          },
        },
      }),
    });
    expect(response.status).toBe(200);
    const events = await gateway.running.gateway.store.audit.query({ action: 'unikraft_get_user' });
    expect(events[0]).toMatchObject({ traceparent, decision: 'allowed' });
  });

  it('is recorded for a retry the endpoint refuses (a requestState it did not mint)', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const response = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'unikraft_get_user',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'unikraft_get_user',
          requestState: 'forged-state',
          inputResponses: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
            traceparent,
          },
        },
      }),
    });
    const reply = (await response.json()) as { id: unknown; error?: { code: number } };
    expect(reply).toMatchObject({ id: 7, error: { code: -32602 } });
    const events = await gateway.running.gateway.store.audit.query({
      reason: 'request_state_invalid',
    });
    expect(events[0]).toMatchObject({
      traceparent,
      decision: 'denied',
      action: 'unikraft_get_user',
    });
  });
});
