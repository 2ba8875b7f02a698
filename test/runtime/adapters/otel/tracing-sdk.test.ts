/**
 * Traces for real: the server runs as a child process configured by the
 * standard `OTEL_*` variables, exporting over OTLP/HTTP (JSON) to a receiver
 * on loopback; its native connection's upstream is a loopback server that
 * keeps the `traceparent` each request brings. A call carrying a trace (in a
 * 2026-07-28 request's `_meta`, or in the HTTP `traceparent` header of a
 * 2025-11-25 one) is one span `mcp tools/call`, the child of the caller's,
 * with governance, upstream and audit spans as its children; the upstream
 * hears the same trace, as the child of the upstream span; the audit event
 * records the trace id. No argument or credential shows in an attribute.
 */
import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tracingWanted } from '../../../../runtime/adapters/otel/tracing-sdk.ts';
import { adminClient } from '../../../support/gateway.ts';
import { type LoopbackServer, startLoopbackServer } from '../../../support/loopback-server.ts';
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from '../../../support/otlp-receiver.ts';
import { startUpstream, type Upstream } from '../../../support/remote/upstream-servers.ts';
import { type ServerChild, startServerChild } from '../../../support/server-child.ts';

const CREDENTIAL = 'traced-credential-4c1d8e';
const ARGUMENT = 'traced-argument-93fa';

let receiver: OtlpReceiver;
let upstream: LoopbackServer;
let remote: Upstream;
let server: ServerChild;
let key: string;
const upstreamTraceparents: string[] = [];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  upstream = await startLoopbackServer({
    '/v1': (request, response) => {
      upstreamTraceparents.push(String(request.headers.traceparent ?? ''));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}');
    },
  });
  remote = await startUpstream('stateful', { resourcesAndPrompts: true });
  server = await startServerChild({
    PORTCULLIS_DEV_UPSTREAMS: `unikraft=${upstream.url.origin}`,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'portcullis-under-test',
    OTEL_TRACES_SAMPLER: 'parentbased_always_on',
    OTEL_BSP_SCHEDULE_DELAY: '50',
  });
  const admin = adminClient(server.url, server.adminToken);
  await admin('POST', '/workspaces/default/connections', {
    provider: 'unikraft',
    credential: CREDENTIAL,
  });
  await admin('POST', '/workspaces/default/remote-connections', { url: remote.url, name: 'wx' });
  await admin('POST', '/workspaces/default/connections/wx/actions/review', { all: true });
  key = (await admin('POST', '/workspaces/default/agents', { name: 'traced' })).body.key;
  await admin('POST', '/workspaces/default/grants', { agent: 'traced', connection: 'unikraft' });
  await admin('POST', '/workspaces/default/grants', { agent: 'traced', connection: 'wx' });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await upstream?.close();
  await remote?.close();
  await receiver?.close();
});

function newTraceparent(): { traceId: string; parentId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { traceId, parentId, traceparent: `00-${traceId}-${parentId}-01` };
}

async function agent(
  era: 'legacy' | 'modern',
  headers: Record<string, string> = {},
): Promise<Client> {
  const client = new Client(
    { name: 'traced', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } },
    }),
  );
  return client;
}

/** The spans of one trace, once the request's span and its three children are in. */
async function traceOf(traceId: string, request = 'mcp tools/call'): Promise<ReceivedSpan[]> {
  const spans = await receiver.until((all) => {
    const mine = all.filter((s) => s.traceId === traceId);
    return (
      mine.some((s) => s.name === request) &&
      ['portcullis.governance', 'portcullis.upstream', 'portcullis.audit'].every((name) =>
        mine.some((s) => s.name === name),
      )
    );
  });
  return spans.filter((s) => s.traceId === traceId);
}

async function auditedTraceparents(): Promise<string[]> {
  const admin = adminClient(server.url, server.adminToken);
  const events = (await admin('GET', '/audit?limit=100')).body as Array<{
    action: string;
    traceparent: string | null;
  }>;
  return events.filter((e) => e.action === 'unikraft_get_user').map((e) => e.traceparent ?? '');
}

function expectOneCallTrace(
  spans: ReceivedSpan[],
  parentId: string,
  method = 'tools/call',
): ReceivedSpan {
  const requests = spans.filter((s) => s.name === `mcp ${method}`);
  expect(requests).toHaveLength(1);
  const request = requests[0]!;
  expect(request.parentSpanId).toBe(parentId);
  expect(request.service).toBe('portcullis-under-test');
  expect(request.attributes['mcp.method.name']).toBe(method);
  for (const name of ['portcullis.governance', 'portcullis.upstream', 'portcullis.audit']) {
    const children = spans.filter((s) => s.name === name);
    expect(children.length, name).toBeGreaterThanOrEqual(1);
    for (const child of children) expect(child.parentSpanId, name).toBe(request.spanId);
  }
  expect(spans.find((s) => s.name === 'portcullis.governance')!.attributes).toMatchObject({
    'portcullis.decision': 'allowed',
  });
  const attributes = JSON.stringify(spans.map((s) => s.attributes));
  for (const secret of [CREDENTIAL, ARGUMENT]) expect(attributes).not.toContain(secret);
  return request;
}

describe('a traced call', () => {
  it("on 2026-07-28, takes the trace from the request's _meta, passes it upstream and audits it", async () => {
    const { traceId, parentId, traceparent } = newTraceparent();
    const client = await agent('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
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
    const spans = await traceOf(traceId);
    expectOneCallTrace(spans, parentId);
    const upstreamSpan = spans.find((s) => s.name === 'portcullis.upstream')!;
    expect(upstreamTraceparents).toContain(`00-${traceId}-${upstreamSpan.spanId}-01`);
    expect((await auditedTraceparents()).some((t) => t.includes(traceId))).toBe(true);
  });

  it('on 2025-11-25, takes the trace from the HTTP traceparent header', async () => {
    const { traceId, parentId, traceparent } = newTraceparent();
    const client = await agent('legacy', { traceparent });
    try {
      expect(
        (await client.callTool({ name: 'unikraft_get_user', arguments: {} })).isError,
      ).toBeFalsy();
    } finally {
      await client.close();
    }
    const spans = await traceOf(traceId);
    expectOneCallTrace(spans, parentId);
    const upstreamSpan = spans.find((s) => s.name === 'portcullis.upstream')!;
    expect(upstreamTraceparents).toContain(`00-${traceId}-${upstreamSpan.spanId}-01`);
    expect((await auditedTraceparents()).some((t) => t.includes(traceId))).toBe(true);
  });

  it('to a remote MCP server passes the trace on to it', async () => {
    const { traceId, parentId, traceparent } = newTraceparent();
    const client = await agent('legacy', { traceparent });
    try {
      const reply = await client.callTool({ name: 'wx__get_weather', arguments: { city: 'Oslo' } });
      expect(reply.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const spans = await traceOf(traceId);
    expectOneCallTrace(spans, parentId);
    const upstreamSpan = spans.find((s) => s.name === 'portcullis.upstream')!;
    expect(remote.seenHeaders.map((h) => h.traceparent)).toContain(
      `00-${traceId}-${upstreamSpan.spanId}-01`,
    );
  });

  it.each([
    [
      'prompts/get',
      (client: Client) => client.getPrompt({ name: 'wx__greet', arguments: { who: ARGUMENT } }),
    ],
    ['resources/read', (client: Client) => client.readResource({ uri: 'wx+memo://welcome' })],
  ] as const)(
    'for a remote server’s %s, has the same children and passes the trace on to it',
    async (method, request) => {
      const { traceId, parentId, traceparent } = newTraceparent();
      const client = await agent('legacy', { traceparent });
      try {
        await request(client);
      } finally {
        await client.close();
      }
      const spans = await traceOf(traceId, `mcp ${method}`);
      expectOneCallTrace(spans, parentId, method);
      const upstreamSpan = spans.find((s) => s.name === 'portcullis.upstream')!;
      expect(upstreamSpan.attributes).toEqual({
        'portcullis.source': 'remote_mcp',
        'portcullis.class': 'read',
      });
      expect(remote.seenHeaders.map((h) => h.traceparent)).toContain(
        `00-${traceId}-${upstreamSpan.spanId}-01`,
      );
    },
  );

  it('without a trace of its own, starts one, and the upstream and the audit event name it', async () => {
    const client = await agent('legacy');
    const before = upstreamTraceparents.length;
    try {
      expect(
        (await client.callTool({ name: 'unikraft_get_user', arguments: {} })).isError,
      ).toBeFalsy();
    } finally {
      await client.close();
    }
    const sent = upstreamTraceparents.slice(before).at(-1)!;
    const traceId = /^00-([0-9a-f]{32})-[0-9a-f]{16}-01$/.exec(sent)?.[1];
    expect(traceId).toBeDefined();
    const spans = await traceOf(traceId!);
    expect(expectOneCallTrace(spans, '').parentSpanId).toBe('');
    expect((await auditedTraceparents()).some((t) => t.includes(traceId!))).toBe(true);
  });
});

describe('a refused call', () => {
  it('is traced with its decision and audit, and its argument shows in no attribute', async () => {
    const { traceId, parentId, traceparent } = newTraceparent();
    const client = await agent('modern');
    try {
      const reply = await client.callTool({
        name: 'unikraft_get_user',
        arguments: { not_a_parameter: ARGUMENT },
        _meta: { traceparent },
      });
      expect(reply.isError).toBe(true);
    } finally {
      await client.close();
    }
    const spans = (
      await receiver.until((all) =>
        ['mcp tools/call', 'portcullis.audit'].every((name) =>
          all.some((s) => s.traceId === traceId && s.name === name),
        ),
      )
    ).filter((s) => s.traceId === traceId);
    const request = spans.find((s) => s.name === 'mcp tools/call')!;
    expect(request.parentSpanId).toBe(parentId);
    expect(spans.find((s) => s.name === 'portcullis.audit')!.parentSpanId).toBe(request.spanId);
    expect(spans.some((s) => s.name === 'portcullis.upstream')).toBe(false);
    expect(JSON.stringify(receiver.spans())).not.toContain(ARGUMENT);
  });
});

describe('without a protocol named', () => {
  it('exports the spans as OTLP protobuf, the specification’s default', async () => {
    const own = await startOtlpReceiver();
    const child = await startServerChild({
      OTEL_EXPORTER_OTLP_ENDPOINT: own.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    try {
      const admin = adminClient(child.url, child.adminToken);
      const agentKey = (await admin('POST', '/workspaces/default/agents', { name: 'proto' })).body
        .key as string;
      const client = new Client({ name: 'proto', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${child.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${agentKey}` } },
        }),
      );
      await client.close();
      // Its `mcp initialize` span, in the first export.
      await own.until(() => own.contentTypes().length > 0);
      expect(own.contentTypes()[0]).toBe('application/x-protobuf');
    } finally {
      await child.stop();
      await own.close();
    }
  });
});

describe('tracingWanted', () => {
  it.each([
    ['nothing set', {}, false],
    ['an OTLP endpoint', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, true],
    ['a traces endpoint', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }, true],
    ['the otlp exporter named', { OTEL_TRACES_EXPORTER: 'otlp' }, true],
    [
      'the SDK disabled',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' },
      false,
    ],
    [
      'no traces exporter',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' },
      false,
    ],
    ['a service name alone', { OTEL_SERVICE_NAME: 'gw' }, false],
  ] as const)('%s: %s', (_name, given, want) => {
    expect(tracingWanted(given)).toBe(want);
  });
});
