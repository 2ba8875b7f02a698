/**
 * Every error of every HTTP route besides `/mcp` is the one JSON error shape,
 * with its status from the reason table: bodies are read only after the admin
 * token is checked, a body over the limit is `payload_too_large`, a route nobody
 * serves is `not_found`, and none of these reach the operator's log. A repeated
 * Host header (sent on a raw socket: no HTTP client sends one) is a 400 on
 * every route, `/mcp` included.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLog } from '../../../../runtime/compose/log.ts';
import { startTestGateway, type TestGateway } from '../../../support/gateway.ts';

let gateway: TestGateway;
const logLines: string[] = [];

beforeAll(async () => {
  gateway = await startTestGateway({
    log: createLog({ destination: { write: (line: string) => logLines.push(line) } }),
  });
});

afterAll(async () => {
  await gateway?.close();
});

const TWO_MB = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) });

interface Request {
  method: string;
  path: string;
  token?: boolean;
  body?: string;
}

describe('the HTTP routes besides /mcp', () => {
  it.each<[string, { given: Request; want: { status: number; code: string; field?: string } }]>([
    [
      'an unauthenticated 2 MB POST',
      {
        given: { method: 'POST', path: '/admin/v1/workspaces', body: TWO_MB },
        want: { status: 401, code: 'unauthenticated' },
      },
    ],
    [
      'an authenticated 2 MB POST',
      {
        given: { method: 'POST', path: '/admin/v1/workspaces', token: true, body: TWO_MB },
        want: { status: 413, code: 'payload_too_large', field: 'body' },
      },
    ],
    [
      'a body that is not JSON',
      {
        given: { method: 'POST', path: '/admin/v1/workspaces', token: true, body: '{"name":' },
        want: { status: 400, code: 'invalid_input', field: 'body' },
      },
    ],
    [
      'an admin route that does not exist',
      {
        given: { method: 'GET', path: '/admin/v1/nope', token: true },
        want: { status: 404, code: 'not_found', field: 'path' },
      },
    ],
    [
      'an admin route with a method it does not take',
      {
        given: { method: 'DELETE', path: '/admin/v1/workspaces', token: true },
        want: { status: 404, code: 'not_found', field: 'path' },
      },
    ],
    [
      'a path that is not valid percent-encoding',
      {
        given: { method: 'GET', path: '/admin/v1/workspaces/%E0%A4%A/agents', token: true },
        want: { status: 400, code: 'invalid_input', field: 'path' },
      },
    ],
    [
      'a route outside the admin API',
      { given: { method: 'GET', path: '/nope' }, want: { status: 404, code: 'not_found' } },
    ],
  ])('%s', async (_name, { given, want }) => {
    const errorsBefore = logLines.filter((line) => line.includes('"level":50')).length;
    const response = await fetch(`${gateway.url}${given.path}`, {
      method: given.method,
      headers: {
        'content-type': 'application/json',
        ...(given.token ? { authorization: `Bearer ${gateway.adminToken}` } : {}),
      },
      ...(given.body === undefined ? {} : { body: given.body }),
    });
    expect(response.status).toBe(want.status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const { error } = (await response.json()) as { error: Record<string, unknown> };
    expect(error).toMatchObject({ code: want.code, message: expect.any(String) });
    if (want.field) expect(error.field).toBe(want.field);
    expect(logLines.filter((line) => line.includes('"level":50')).length).toBe(errorsBefore);
  });
});

/** One request written byte for byte, and the status line and body of the reply. */
function rawRequest(url: string, lines: string[]): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let reply = '';
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
    });
    socket.on('error', reject);
    socket.on('end', () => {
      const [head = '', body = ''] = reply.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body });
    });
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}

describe('a request with two Host header lines', () => {
  it.each([
    ['/mcp', 'POST'],
    ['/admin/v1/workspaces', 'GET'],
    ['/healthz', 'GET'],
  ])('%s is answered 400', async (path, method) => {
    const { host } = new URL(gateway.url);
    const reply = await rawRequest(gateway.url, [
      `${method} ${path} HTTP/1.1`,
      `Host: ${host}`,
      'Host: evil.example',
      `Authorization: Bearer ${gateway.adminToken}`,
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      'Content-Length: 0',
      'Connection: close',
    ]);
    expect(reply.status).toBe(400);
    if (path !== '/mcp')
      expect(JSON.parse(reply.body)).toMatchObject({
        error: { code: 'host_header_repeated', field: 'Host' },
      });
    else expect(JSON.parse(reply.body)).toMatchObject({ error: { code: -32000 } });
  });

  it('one Host line on the same socket is served', async () => {
    const { host } = new URL(gateway.url);
    const reply = await rawRequest(gateway.url, [
      'GET /healthz HTTP/1.1',
      `Host: ${host}`,
      'Connection: close',
    ]);
    expect(reply.status).toBe(200);
  });
});

describe('the health checks', () => {
  it('answer GET and HEAD on the paths as Express matched them (any case, a trailing slash, a query), other methods not_found', async () => {
    const own = await startTestGateway();
    try {
      const ready = await fetch(`${own.url}/READYZ/?probe=1`);
      expect(ready.status).toBe(200);
      expect(ready.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await ready.json()).toMatchObject({ status: 'ready', store: 'ok' });
      const head = await fetch(`${own.url}/healthz`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      const post = await fetch(`${own.url}/healthz`, { method: 'POST' });
      expect(post.status).toBe(404);
      expect(await post.json()).toMatchObject({ error: { code: 'not_found' } });
    } finally {
      await own.running.close().catch(() => {});
    }
  });

  it('keep liveness at 200 while the store does not answer, and readiness says 503 not_ready naming it', async () => {
    const own = await startTestGateway({
      log: createLog({ destination: { write: (line: string) => logLines.push(line) } }),
    });
    try {
      expect((await fetch(`${own.url}/healthz`)).status).toBe(200);
      await own.running.gateway.store.close();
      expect((await fetch(`${own.url}/healthz`)).status).toBe(200);
      const reply = await fetch(`${own.url}/readyz`);
      expect(reply.status).toBe(503);
      expect(await reply.json()).toMatchObject({
        error: { code: 'not_ready', detail: { notReady: ['store'] } },
      });
      expect(logLines.join('')).toContain('not ready: a backing service does not answer');
    } finally {
      await own.running.close().catch(() => {});
    }
  });
});
