/**
 * `/metrics` read for real: a gateway with a native connection whose
 * upstream is a loopback server (one path answers, one fails), an agent's
 * calls through the SDK's MCP client (one allowed and answered, one failing
 * upstream, one refused), then the text scraped as an admin on the main
 * port (401 without the token) and without authentication on
 * `PORTCULLIS_METRICS_PORT`. Names, labels and values are checked, and no
 * credential, argument or tool name appears in any label.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONNECTION_LABELS_MAX,
  PrometheusMetrics,
} from '../../../../runtime/adapters/metrics/prometheus-metrics.ts';
import {
  adminClient,
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../support/gateway.ts';
import { type LoopbackServer, startLoopbackServer } from '../../../support/loopback-server.ts';
import { parsePrometheusText, type Sample, sampleValue } from '../../../support/prometheus-text.ts';

const CREDENTIAL = 'metrics-credential-7f3a9c';
const ARGUMENT = 'argument-value-5b2e';

let upstream: LoopbackServer;
let gateway: TestGateway;
let agent: Client;
let key: string;

beforeAll(async () => {
  upstream = await startLoopbackServer({
    '/v1': (request, response) => {
      const failing = (request.url ?? '').startsWith('/v1/images');
      response
        .writeHead(failing ? 503 : 200, { 'content-type': 'application/json' })
        .end(failing ? '{"error":"down"}' : '{"data":{"quotas":{}}}');
    },
  });
  gateway = await startTestGateway({
    upstreams: { unikraft: upstream.url.origin },
    environment: { PORTCULLIS_METRICS_PORT: '0' },
  });
  const admin = adminClient(gateway.url, gateway.adminToken!);
  await admin('POST', '/workspaces/default/connections', {
    provider: 'unikraft',
    credential: CREDENTIAL,
  });
  ({ key } = (await admin('POST', '/workspaces/default/agents', { name: 'counted' })).body);
  await admin('POST', '/workspaces/default/grants', { agent: 'counted', connection: 'unikraft' });
  agent = await mcpClient(gateway.url, key);
  expect((await callTool(agent, 'unikraft_get_user')).isError).toBeFalsy();
  expect((await callTool(agent, 'unikraft_get_images')).isError).toBe(true);
  // A made-up tool, with an argument: refused, and neither shows in a label.
  const refused = await callTool(agent, 'no_such_tool_x9', { secret: ARGUMENT });
  expect(refused.isError).toBe(true);
});

afterAll(async () => {
  await agent?.close();
  await gateway?.close();
  await upstream?.close();
});

async function scrape(): Promise<{ text: string; samples: Sample[] }> {
  const reply = await fetch(`${gateway.url}/metrics`, {
    headers: { authorization: `Bearer ${gateway.adminToken}` },
  });
  expect(reply.status).toBe(200);
  expect(reply.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await reply.text();
  return { text, samples: parsePrometheusText(text) };
}

describe('/metrics on the main port', () => {
  it('refuses a scrape without an admin token (401), and with an agent key', async () => {
    const none = await fetch(`${gateway.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('unauthenticated');
    const wrong = await fetch(`${gateway.url}/metrics`, {
      headers: { authorization: 'Bearer pk_not-an-admin-token' },
    });
    expect(wrong.status).toBe(401);
  });

  it('counts the calls by method, connection, class, outcome and reason code', async () => {
    const { samples } = await scrape();
    const calls = (labels: Record<string, string>) =>
      sampleValue(samples, 'portcullis_calls_total', { method: 'tools/call', ...labels });
    expect(
      calls({ connection: 'unikraft', class: 'read', outcome: 'ok', reason: '' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      calls({ connection: 'unikraft', class: 'read', outcome: 'error', reason: 'upstream_status' }),
    ).toBeGreaterThanOrEqual(1);
    const refused = samples.filter(
      (s) => s.name === 'portcullis_calls_total' && s.labels.outcome === 'denied',
    );
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused[0]!.labels.connection).toBe('');
    expect(
      sampleValue(samples, 'portcullis_refusals_total', { reason: refused[0]!.labels.reason! }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('times the whole call and its upstream part, and counts the upstream error', async () => {
    const { samples } = await scrape();
    const count = (name: string, labels: Record<string, string>) =>
      sampleValue(samples, `${name}_count`, labels) ?? 0;
    expect(
      count('portcullis_call_duration_seconds', {
        method: 'tools/call',
        connection: 'unikraft',
        outcome: 'ok',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      count('portcullis_upstream_duration_seconds', { connection: 'unikraft', class: 'read' }),
    ).toBeGreaterThanOrEqual(2);
    const upstreamSeconds = sampleValue(samples, 'portcullis_upstream_duration_seconds_sum', {
      connection: 'unikraft',
      class: 'read',
    })!;
    const callSeconds = samples
      .filter(
        (s) =>
          s.name === 'portcullis_call_duration_seconds_sum' && s.labels.connection === 'unikraft',
      )
      .reduce((sum, s) => sum + s.value, 0);
    expect(upstreamSeconds).toBeGreaterThan(0);
    expect(upstreamSeconds).toBeLessThanOrEqual(callSeconds);
    expect(
      sampleValue(samples, 'portcullis_upstream_errors_total', {
        connection: 'unikraft',
        reason: 'upstream_status',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(count('portcullis_audit_write_duration_seconds', {})).toBeGreaterThanOrEqual(3);
  });

  it('reports connection health, live sessions and the process', async () => {
    const { samples } = await scrape();
    const health = ['unknown', 'ok', 'degraded', 'error'].map((state) =>
      sampleValue(samples, 'portcullis_connection_health', { connection: 'unikraft', state }),
    );
    expect(health.filter((value) => value === 1)).toHaveLength(1);
    expect(health.filter((value) => value === 0)).toHaveLength(3);
    expect(sampleValue(samples, 'portcullis_sessions')).toBeGreaterThanOrEqual(1);
    expect(sampleValue(samples, 'portcullis_process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(sampleValue(samples, 'portcullis_nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it("counts the live sessions of every MCP endpoint, a connection's own (/mcp/c/<name>) too", async () => {
    const sessions = async () =>
      Number(sampleValue((await scrape()).samples, 'portcullis_sessions'));
    const before = await sessions();
    const own = await mcpClient(gateway.url, key, '/mcp/c/unikraft');
    try {
      expect(own.getServerVersion()?.name).toBe('portcullis');
      expect(await sessions()).toBe(before + 1);
      // Ended (DELETE), it is counted no more.
      await (own.transport as StreamableHTTPClientTransport).terminateSession();
      expect(await sessions()).toBe(before);
    } finally {
      await own.close();
    }
  });

  it('names every metric portcullis_… and puts no credential, argument or tool name in a label', async () => {
    const { text, samples } = await scrape();
    for (const sample of samples) expect(sample.name).toMatch(/^portcullis_/);
    for (const secret of [CREDENTIAL, ARGUMENT, 'no_such_tool_x9', 'unikraft_get_user', 'counted'])
      expect(text).not.toContain(secret);
  });
});

describe('/metrics on PORTCULLIS_METRICS_PORT', () => {
  it('answers without authentication, the same metrics, and nothing else', async () => {
    const url = gateway.running.metricsUrl!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(url).port).not.toBe(new URL(gateway.url).port);
    const reply = await fetch(url);
    expect(reply.status).toBe(200);
    const samples = parsePrometheusText(await reply.text());
    expect(
      sampleValue(samples, 'portcullis_calls_total', {
        method: 'tools/call',
        connection: 'unikraft',
        outcome: 'ok',
        reason: '',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect((await fetch(new URL('/admin/v1/workspaces', url))).status).toBe(404);
    expect((await fetch(new URL('/mcp', url), { method: 'POST' })).status).toBe(404);
  });
});

describe('the connection label', () => {
  it(`takes at most ${CONNECTION_LABELS_MAX} names, the rest counted as other`, async () => {
    const metrics = new PrometheusMetrics({ liveSessions: () => 0, connections: async () => [] });
    for (let i = 0; i < CONNECTION_LABELS_MAX + 100; i++)
      metrics.callFinished({
        method: 'tools/call',
        connection: `c${i}`,
        actionClass: 'read',
        decision: 'allowed',
        outcome: 'ok',
        reason: null,
        seconds: 0.001,
        upstreamSeconds: 0.0005,
      });
    const calls = parsePrometheusText(await metrics.text()).filter(
      (s) => s.name === 'portcullis_calls_total',
    );
    expect(calls).toHaveLength(CONNECTION_LABELS_MAX + 1);
    expect(calls.find((s) => s.labels.connection === 'other')?.value).toBe(100);
  });
});
