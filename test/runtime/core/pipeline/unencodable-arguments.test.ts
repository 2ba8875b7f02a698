/**
 * Agent input the gateway cannot encode: a lone surrogate (`"\ud800"`, valid
 * JSON text, not valid Unicode) and arguments nested 100,000 deep, sent as raw
 * JSON-RPC text (no client library would serialise them). Each is refused as
 * `arguments_invalid` naming the field, and leaves its audit event.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, startTestGateway, type TestGateway } from '../../../support/gateway.ts';

let upstream: Server;
let gateway: TestGateway;
let admin: ReturnType<typeof adminClient>;
let key: string;
let session: string;
let upstreamCalls = 0;

async function post(text: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${gateway.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(session ? { 'mcp-session-id': session } : {}),
    },
    body: text,
  });
  if (!session) session = response.headers.get('mcp-session-id') ?? '';
  const body = await response.text();
  return { status: response.status, body: body ? JSON.parse(body) : undefined };
}

/** A tools/call whose `arguments` member is the raw JSON text given. */
function callWith(
  argumentsText: string,
  tool = 'unikraft_create_volume',
): Promise<{
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON-RPC reply field by field
  body: any;
}> {
  return post(
    `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"${tool}","arguments":${argumentsText}}}`,
  );
}

beforeAll(async () => {
  upstream = createServer((_req, res) => {
    upstreamCalls += 1;
    res.setHeader('content-type', 'application/json');
    res.end('{"status":"success"}');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  gateway = await startTestGateway({
    upstreams: { unikraft: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` },
  });
  admin = adminClient(gateway.url, gateway.adminToken!);
  await admin('POST', '/workspaces/default/connections', { provider: 'unikraft', credential: 't' });
  ({ key } = (await admin('POST', '/workspaces/default/agents', { name: 'a' })).body);
  await admin('POST', '/workspaces/default/grants', {
    agent: 'a',
    connection: 'unikraft',
    scope: 'all',
  });
  await admin('POST', '/workspaces/default/connections/unikraft/actions/enable', { all: true });
  await post(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      },
    }),
  );
  upstreamCalls = 0;
});

afterAll(async () => {
  await gateway?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('arguments the gateway cannot encode', () => {
  it.each<[string, { given: string; field: string }]>([
    [
      'a lone surrogate in a value',
      { given: '{"body":{"name":"\\ud800","size_mb":1}}', field: '/body/name' },
    ],
    ['a lone surrogate in a property name', { given: '{"body":{"\\udfff":1}}', field: '/body' }],
    ['100,000 levels deep', { given: `{"body":${deep(100_000)}}`, field: '/body' }],
  ])('%s: arguments_invalid naming the field, audited', async (_name, { given, field }) => {
    const sent = upstreamCalls;
    const reply = await callWith(given);
    expect(reply.status).toBe(200);
    expect(reply.body.result.isError).toBe(true);
    expect(reply.body.result.structuredContent.error).toMatchObject({
      code: 'arguments_invalid',
      field,
    });
    const [event] = (await admin('GET', '/audit?action=unikraft_create_volume&limit=1')).body;
    expect(event).toMatchObject({
      decision: 'denied',
      reason: 'arguments_invalid',
      argumentHash: null,
    });
    expect(upstreamCalls).toBe(sent);
  });

  it('still decides first: an action not enabled is refused as such', async () => {
    await admin('POST', '/workspaces/default/connections/unikraft/actions/disable', {
      actions: ['unikraft_create_volume'],
    });
    const reply = await callWith('{"body":{"name":"\\ud800"}}');
    expect(reply.body.result.structuredContent.error.code).toBe('action_disabled');
    await admin('POST', '/workspaces/default/connections/unikraft/actions/enable', {
      actions: ['unikraft_create_volume'],
    });
  });

  it('passes well-formed surrogate pairs and arguments 200 levels deep on', async () => {
    const sent = upstreamCalls;
    const pair = await callWith('{"body":{"name":"\\ud83d\\ude00","size_mb":1}}');
    expect(pair.body.result.isError).toBeFalsy();
    const nested = await callWith(`{"body":{"name":"v","size_mb":1,"extra":${deep(200)}}}`);
    expect(nested.body.result.isError).toBeFalsy();
    expect(upstreamCalls).toBe(sent + 2);
  });
});
