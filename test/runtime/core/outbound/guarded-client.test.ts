import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cancellation } from '../../../../runtime/core/base/cancellation.ts';
import { GatewayError } from '../../../../runtime/core/base/errors.ts';
import {
  createGuardedClient,
  type GuardedClient,
  type OutboundPolicy,
} from '../../../../runtime/core/outbound/guarded-client.ts';
import { Redactor } from '../../../../runtime/core/outbound/redaction.ts';
import { type LoopbackServer, startLoopbackServer } from '../../../support/loopback-server.ts';

const DEV: OutboundPolicy = {
  allowPrivateNetworks: true,
  connectTimeoutMs: 2_000,
  replyTimeoutMs: 300,
  maxReplyBytes: 1_500,
};
const DEFAULT: OutboundPolicy = { ...DEV, allowPrivateNetworks: false };

const SECRET = 'tok/en+s3cr3t=value';

let server: LoopbackServer;
let dev: GuardedClient;
let strict: GuardedClient;

beforeAll(async () => {
  server = await startLoopbackServer({
    '/ok': (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'x-Mixed-Case': 'yes' });
      response.end('{"ok":true}');
    },
    '/echo': (request, response, body) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ method: request.method, body: body.toString('utf8') }));
    },
    '/redirect': (_request, response) => {
      response.writeHead(302, { location: '/target' }).end();
    },
    '/target': (_request, response) => {
      response.writeHead(200).end('followed');
    },
    '/exactly-at-cap': (_request, response) => {
      response.writeHead(200).end(Buffer.alloc(1_500, 'a'));
    },
    '/streams-past-cap': (_request, response) => {
      // Chunked, no length declared; the stream then stays open, so only the cap can end it.
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.write(Buffer.alloc(1_000, 'a'));
      setImmediate(() => response.write(Buffer.alloc(1_000, 'b')));
    },
    '/declares-past-cap': (_request, response) => {
      response.writeHead(200, { 'content-length': '2000' });
      response.write(Buffer.alloc(100, 'a'));
    },
    '/never-answers': () => {},
    '/stalls-mid-body': (_request, response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write(Buffer.alloc(10, 'a'));
    },
    '/drops-connection': (request) => {
      request.socket.destroy();
    },
  });
  dev = createGuardedClient(DEV);
  strict = createGuardedClient(DEFAULT);
});

afterAll(async () => {
  await dev.close();
  await strict.close();
  await server.close();
});

function at(path: string, base: URL = server.url): URL {
  return new URL(path, base);
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** Everything an error could show or log: message, field, detail, cause. */
function visible(error: Error): string {
  const cause = error.cause instanceof Error ? `${error.cause.name} ${error.cause.message}` : '';
  const detail = error instanceof GatewayError ? JSON.stringify(error.detail ?? {}) : '';
  return `${error.message} ${detail} ${cause} ${String(error.stack)}`;
}

describe('guarded client: replies', () => {
  it('returns status, lowercase headers, body and byte count', async () => {
    const reply = await dev.send({ method: 'GET', url: at('/ok'), headers: {} });
    expect(reply.status).toBe(200);
    expect(reply.headers['x-mixed-case']).toBe('yes');
    expect(JSON.parse(reply.body.toString('utf8'))).toEqual({ ok: true });
    expect(reply.bytes).toBe(11);
  });

  it.each([['GET'], ['DELETE']])('sends a body on %s', async (method) => {
    const reply = await dev.send({
      method,
      url: at('/echo'),
      headers: { 'content-type': 'application/json' },
      body: '{"names":["a"]}',
    });
    expect(JSON.parse(reply.body.toString('utf8'))).toEqual({ method, body: '{"names":["a"]}' });
  });

  it('returns a redirect as a reply and never requests its Location', async () => {
    const before = server.hits('/target');
    const reply = await dev.send({ method: 'GET', url: at('/redirect'), headers: {} });
    expect(reply.status).toBe(302);
    expect(reply.headers.location).toBe('/target');
    expect(server.hits('/target')).toBe(before);
  });

  // undici waits one event-loop turn before reusing a socket (pipelining 1), so a caller
  // that sends again at once may open a second connection; never one per call.
  // A server of its own: a connection another test's client opens late (after a timeout or
  // an aborted reply) is not counted here.
  it('reuses kept-alive connections: 20 sequential calls open at most two', async () => {
    const own = await startLoopbackServer({
      '/ok': (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"ok":true}');
      },
    });
    const client = createGuardedClient(DEV);
    try {
      for (let i = 0; i < 20; i += 1) {
        const reply = await client.send({ method: 'GET', url: at('/ok', own.url), headers: {} });
        expect(reply.status).toBe(200);
      }
    } finally {
      await client.close();
      await own.close();
    }
    expect(own.connections()).toBeGreaterThanOrEqual(1);
    expect(own.connections()).toBeLessThanOrEqual(2);
  });
});

describe('guarded client: reply size cap', () => {
  it('accepts a body of exactly the cap', async () => {
    const reply = await dev.send({ method: 'GET', url: at('/exactly-at-cap'), headers: {} });
    expect(reply.bytes).toBe(1_500);
  });

  it.each([['/streams-past-cap'], ['/declares-past-cap']])(
    '%s fails with upstream_reply_too_large and the limit',
    async (path) => {
      const error = await failure(dev.send({ method: 'GET', url: at(path), headers: {} }));
      expect(error.code).toBe('upstream_reply_too_large');
      expect(error.detail).toMatchObject({ limit: 1_500, requestSent: true });
    },
  );

  it('takes a per-call cap', async () => {
    const error = await failure(
      dev.send({ method: 'GET', url: at('/ok'), headers: {} }, { maxReplyBytes: 5 }),
    );
    expect(error.code).toBe('upstream_reply_too_large');
    expect(error.detail?.limit).toBe(5);
  });
});

describe('guarded client: failures say whether the request was sent', () => {
  it.each([
    ['no reply at all', '/never-answers'],
    ['a body that stops', '/stalls-mid-body'],
  ])('%s is upstream_timeout in the reply phase, requestSent', async (_name, path) => {
    const error = await failure(dev.send({ method: 'POST', url: at(path), headers: {} }));
    expect(error.code).toBe('upstream_timeout');
    expect(error.detail).toMatchObject({ phase: 'reply', requestSent: true });
  });

  it('a connection dropped after the request is upstream_unreachable, requestSent', async () => {
    const error = await failure(
      dev.send({ method: 'POST', url: at('/drops-connection'), headers: {} }),
    );
    expect(error.code).toBe('upstream_unreachable');
    expect(error.detail?.requestSent).toBe(true);
  });

  it('a refused connection is upstream_unreachable, not sent', async () => {
    const closed = await startLoopbackServer({});
    const url = at('/x', closed.url);
    await closed.close();
    const error = await failure(dev.send({ method: 'POST', url, headers: {} }));
    expect(error.code).toBe('upstream_unreachable');
    expect(error.detail).toMatchObject({ phase: 'connect', requestSent: false });
  });

  it('a name that does not resolve is upstream_unreachable, not sent', async () => {
    const error = await failure(
      dev.send({ method: 'GET', url: new URL('http://no-such-host.invalid/'), headers: {} }),
    );
    expect(error.code).toBe('upstream_unreachable');
    expect(error.detail?.requestSent).toBe(false);
  });

  it('a call cancelled after it was sent fails with upstream_timeout, requestSent', async () => {
    const call = new Cancellation();
    const arrived = server.nextHit('/never-answers');
    const pending = dev.send(
      { method: 'POST', url: at('/never-answers'), headers: {} },
      { cancel: call },
    );
    await arrived;
    call.cancel();
    const error = await failure(pending);
    expect(error.code).toBe('upstream_timeout');
    expect(error.detail).toMatchObject({ cause: 'aborted', requestSent: true });
  });

  it('a call cancelled before it starts fails without a request', async () => {
    const call = new Cancellation();
    call.cancel();
    const error = await failure(
      dev.send({ method: 'POST', url: at('/ok'), headers: {} }, { cancel: call }),
    );
    expect(error.code).toBe('upstream_timeout');
    expect(error.detail).toMatchObject({ cause: 'aborted', requestSent: false });
  });
});

describe('guarded client: addresses', () => {
  it.each([
    ['a loopback literal', (port: number) => `http://127.0.0.1:${port}/ok`],
    ['a name resolving to loopback', (port: number) => `http://localhost:${port}/ok`],
    ['an IPv4-mapped IPv6 literal', (port: number) => `http://[::ffff:127.0.0.1]:${port}/ok`],
    ['an IPv4-compatible IPv6 literal', (port: number) => `http://[::127.0.0.1]:${port}/ok`],
    ['an IPv6 loopback literal', (port: number) => `http://[::1]:${port}/ok`],
    ['a private literal', () => 'http://10.1.2.3/ok'],
    ['a link-local literal', () => 'http://169.254.169.254/latest/meta-data'],
  ])('%s is refused by default, before any connection', async (_name, url) => {
    // Let connections other tests' clients are still opening or closing settle first.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const before = server.connections();
    const error = await failure(
      strict.send({ method: 'GET', url: new URL(url(server.port)), headers: {} }),
    );
    expect(error.code).toBe('upstream_address_refused');
    expect(error.detail?.requestSent).toBe(false);
    expect(server.connections()).toBe(before);
  });

  it.each([
    ['a loopback literal', (port: number) => `http://127.0.0.1:${port}/ok`],
    ['a name resolving to loopback', (port: number) => `http://localhost:${port}/ok`],
  ])('%s is allowed by the development policy', async (_name, url) => {
    const reply = await dev.send({ method: 'GET', url: new URL(url(server.port)), headers: {} });
    expect(reply.status).toBe(200);
  });

  it.each([
    ['IPv4-compatible', 'http://[::e000:1]/ok'],
    ['IPv4-mapped', 'http://[::ffff:255.255.255.255]/ok'],
    ['6to4', 'http://[2002:e000:1::1]/ok'],
  ])(
    'an %s literal of a multicast or broadcast address is refused by every policy',
    async (_name, url) => {
      const error = await failure(dev.send({ method: 'GET', url: new URL(url), headers: {} }));
      expect(error.code).toBe('upstream_address_refused');
      expect(error.detail?.requestSent).toBe(false);
    },
  );
});

describe('guarded client: errors never show secrets', () => {
  const secretUrl = (base: URL) =>
    new URL(`/never-answers/${encodeURIComponent(SECRET)}?key=${encodeURIComponent(SECRET)}`, base);

  it.each([
    ['a timeout', () => dev, (base: URL) => secretUrl(base)],
    ['a refused address', () => strict, (base: URL) => secretUrl(base)],
    [
      'a reply over the cap',
      () => dev,
      (base: URL) => new URL(`/streams-past-cap?key=${encodeURIComponent(SECRET)}`, base),
    ],
  ])('%s', async (_name, client, url) => {
    const error = await failure(
      client().send({
        method: 'POST',
        url: url(server.url),
        headers: { authorization: `Bearer ${SECRET}`, 'x-api-key': SECRET },
        body: SECRET,
        redactor: new Redactor([SECRET]),
      }),
    );
    const text = visible(error);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(encodeURIComponent(SECRET));
    expect(text).toContain('[redacted]');
  });

  it('refuses a URL with userinfo without showing it', async () => {
    const url = new URL(server.url);
    url.username = 'operator';
    url.password = SECRET;
    let caught: unknown;
    try {
      await dev.send({ method: 'GET', url, headers: {}, redactor: new Redactor([]) });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TypeError);
    const text = visible(caught as Error);
    expect(text).not.toContain(encodeURIComponent(SECRET));
    expect(text).not.toContain('operator');
  });
});
