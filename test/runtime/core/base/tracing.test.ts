/**
 * Tracing off (no `OTEL_*` variables, so no SDK in the process): the spans
 * are no-ops, no `traceparent` goes upstream, and the audit event records
 * the trace the request carried, as before tracing existed.
 */
import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  inSpan,
  NO_SPAN,
  traceCarrierOf,
  traceparentOf,
  withTraceHeaders,
} from '../../../../runtime/core/base/tracing.ts';
import { adminClient, startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { type LoopbackServer, startLoopbackServer } from '../../../support/loopback-server.ts';

let upstream: LoopbackServer;
let gateway: TestGateway;
let key: string;
const upstreamHeaders: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  upstream = await startLoopbackServer({
    '/v1': (request, response) => {
      upstreamHeaders.push(request.headers);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}');
    },
  });
  gateway = await startTestGateway({ upstreams: { unikraft: upstream.url.origin } });
  const admin = adminClient(gateway.url, gateway.adminToken!);
  await admin('POST', '/workspaces/default/connections', { provider: 'unikraft', credential: 't' });
  key = (await admin('POST', '/workspaces/default/agents', { name: 'untraced' })).body.key;
  await admin('POST', '/workspaces/default/grants', { agent: 'untraced', connection: 'unikraft' });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('tracing off', () => {
  it('hands the work no trace and adds no header', async () => {
    await inSpan('portcullis.test', {}, NO_SPAN, async (inside) => {
      expect(traceparentOf(inside)).toBeUndefined();
      expect(traceCarrierOf(inside)).toBeUndefined();
      expect(withTraceHeaders({ accept: 'application/json' }, traceCarrierOf(inside))).toEqual({
        accept: 'application/json',
      });
    });
  });

  it("sends no traceparent upstream, and audits the request's own", async () => {
    const traceparent = `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
    const client = new Client(
      { name: 'untraced', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    const before = upstreamHeaders.length;
    try {
      const reply = await client.callTool({
        name: 'unikraft_get_user',
        arguments: {},
        _meta: { traceparent },
      });
      expect(reply.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const sent = upstreamHeaders.slice(before);
    expect(sent.length).toBeGreaterThanOrEqual(1);
    for (const headers of sent) expect(headers.traceparent).toBeUndefined();
    const admin = adminClient(gateway.url, gateway.adminToken!);
    const events = (await admin('GET', '/audit?limit=50')).body as Array<{
      traceparent: string | null;
    }>;
    expect(events.map((e) => e.traceparent)).toContain(traceparent);
  });
});
