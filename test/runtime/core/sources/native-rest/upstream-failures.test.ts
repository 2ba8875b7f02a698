/**
 * What the gateway does when the provider misbehaves. Prism cannot send a
 * reply too large, drop a connection mid-request or fail on cue, so the
 * upstream here is a loopback server whose next behaviour each test chooses.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { unescapeJson } from '../../../../../runtime/core/outbound/json-escapes.ts';
import {
  adminClient,
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
  type ToolReply,
} from '../../../../support/gateway.ts';

type Behaviour =
  | 'ok'
  | 'huge'
  | 'drop'
  | 'fail'
  | 'not-json'
  | 'redirect'
  | 'still-running'
  | 'echo-credential'
  | 'invalid-http'
  | 'trickle'
  | 'echo-object'
  | 'echo-array'
  | 'echo-error'
  | 'echo-text'
  | 'deep-array'
  | 'deep-object'
  | 'deep-error';

/** 600 KB of JSON nested 300,000 deep. */
const DEEP = `${'['.repeat(300_000)}${']'.repeat(300_000)}`;

/** How the upstream writes the credential it echoes: each a way JSON allows. */
const ENCODINGS: Record<string, (text: string) => string> = {
  'first character escaped': (text) => text.replace('C', '\\u0043'),
  'slashes escaped (PHP)': (text) => text.replaceAll('/', '\\/'),
  'plus escaped (.NET)': (text) => text.replaceAll('+', '\\u002B'),
  'every character escaped': (text) =>
    [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
};
let encode: (text: string) => string = (text) => text;

// With the characters PHP and .NET escape by default.
const TOKEN = `CANARY-${randomBytes(12).toString('hex')}+a/b=`;

let behaviour: Behaviour = 'ok';
let requests = 0;
let upstream: Server;
let gateway: TestGateway;
let admin: ReturnType<typeof adminClient>;
let client: Client;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    requests += 1;
    req.resume();
    req.on('end', () => {
      switch (behaviour) {
        case 'ok':
          res.setHeader('content-type', 'application/json');
          res.end('{"status":"success"}');
          return;
        case 'huge':
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ blob: 'x'.repeat(1_200_000) }));
          return;
        case 'drop':
          req.socket.destroy();
          return;
        case 'fail':
          res.statusCode = 503;
          res.end('unavailable');
          return;
        case 'not-json':
          res.setHeader('content-type', 'application/json');
          res.end('{"status": "succ');
          return;
        case 'redirect':
          res.statusCode = 302;
          // Back to this same server: following it would show as a second request.
          res.setHeader('location', `http://${req.headers.host}/followed`);
          res.end();
          return;
        case 'echo-credential':
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ message: 'bad token', got: req.headers.authorization }));
          return;
        case 'echo-object':
        case 'echo-array':
        case 'echo-error':
        case 'echo-text': {
          const got = encode(req.headers.authorization ?? '');
          const text = {
            'echo-object': `{"message":"bad token","got":"${got}"}`,
            'echo-array': `[{"got":"${got}"}, "${got}"]`,
            'echo-error': `{"error":{"got":"${got}"}}`,
            'echo-text': `you sent ${got}`,
          }[behaviour];
          res.statusCode = behaviour === 'echo-error' ? 401 : 200;
          res.setHeader(
            'content-type',
            behaviour === 'echo-text' ? 'text/plain' : 'application/json',
          );
          res.end(text);
          return;
        }
        case 'deep-array':
        case 'deep-object':
        case 'deep-error':
          res.statusCode = behaviour === 'deep-error' ? 400 : 200;
          res.setHeader('content-type', 'application/json');
          res.end(behaviour === 'deep-object' ? `{"a":${DEEP}}` : DEEP);
          return;
        case 'invalid-http':
          // Straight onto the socket: a status line no HTTP parser accepts.
          res.socket?.end('HTTP/1.1 abc OK\r\n\r\n');
          return;
        case 'trickle':
          // One byte of the body every 100 ms: never a pause the reply timeout would end.
          res.setHeader('content-type', 'application/json');
          res.write('{"status":"success"');
          trickle(res);
          return;
        case 'still-running':
          res.statusCode = 408;
          res.setHeader('content-type', 'application/json');
          res.end('{"status":"error","message":"timeout"}');
          return;
      }
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  gateway = await startTestGateway({
    upstreams: { unikraft: origin },
    environment: { PORTCULLIS_UPSTREAM_DEADLINE_MS: '1500' },
  });
  admin = adminClient(gateway.url, gateway.adminToken!);
  await admin('POST', '/workspaces/default/connections', {
    provider: 'unikraft',
    credential: TOKEN,
  });
  const { key } = (await admin('POST', '/workspaces/default/agents', { name: 'a' })).body;
  await admin('POST', '/workspaces/default/grants', {
    agent: 'a',
    connection: 'unikraft',
    scope: 'all',
  });
  await admin('POST', '/workspaces/default/connections/unikraft/actions/enable', { all: true });
  client = await mcpClient(gateway.url, key);
});

beforeEach(async () => {
  behaviour = 'ok';
  await call('unikraft_get_user'); // a success resets health
  requests = 0;
});

afterAll(async () => {
  await client?.close();
  await gateway?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

function trickle(res: ServerResponse): void {
  const timer = setInterval(() => res.write(' '), 100);
  res.on('close', () => clearInterval(timer));
}

function call(name: string, args: Record<string, unknown> = {}): Promise<ToolReply> {
  return callTool(client, name, args);
}

async function health(): Promise<string> {
  const [connection] = (await admin('GET', '/workspaces/default/connections')).body;
  return connection.health;
}

describe('a bad reply fails only its call', () => {
  it.each<[Behaviour, string]>([
    ['huge', 'upstream_reply_too_large'],
    ['not-json', 'upstream_reply_invalid'],
    ['redirect', 'upstream_redirect_refused'],
    ['invalid-http', 'upstream_reply_invalid'],
  ])('%s: %s, and the connection stays ok', async (bad, code) => {
    behaviour = bad;
    for (let i = 0; i < 6; i++)
      expect((await call('unikraft_get_user')).structuredContent?.error?.code).toBe(code);
    expect(await health()).toBe('ok');
    behaviour = 'ok';
    expect((await call('unikraft_get_user')).isError).toBeFalsy();
  });

  it('does not follow a redirect', async () => {
    behaviour = 'redirect';
    await call('unikraft_get_user');
    expect(requests).toBe(1);
  });
});

describe('a reply nested too deep to pass on', () => {
  it.each<Behaviour>(['deep-array', 'deep-object', 'deep-error'])(
    '%s: a tool result with upstream_reply_invalid and the status, audited as such',
    async (bad) => {
      behaviour = bad;
      const result = await call('unikraft_get_user');
      expect(result.isError).toBe(true);
      expect(result.structuredContent?.error).toMatchObject({
        code: 'upstream_reply_invalid',
        detail: { status: bad === 'deep-error' ? 400 : 200 },
      });
      const [event] = (await admin('GET', '/audit?action=unikraft_get_user&limit=1')).body;
      expect(event).toMatchObject({ outcome: 'error', reason: 'upstream_reply_invalid' });
      expect(await health()).toBe('ok');
    },
  );

  it('tells the agent that a write it answered happened', async () => {
    behaviour = 'deep-array';
    const result = await call('unikraft_create_volume', { body: { name: 'v', size_mb: 1 } });
    expect(result.structuredContent?.error).toMatchObject({
      code: 'upstream_reply_invalid',
      detail: { status: 200 },
    });
    expect(requests).toBe(1);
  });
});

describe('health', () => {
  it('marks a streak of 5xx degraded, then error, and one success ok again', async () => {
    behaviour = 'fail';
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      const result = await call('unikraft_get_user');
      expect(result.structuredContent?.error).toMatchObject({
        code: 'upstream_status',
        status: 503,
      });
      seen.push(await health());
    }
    expect(seen).toEqual(['ok', 'degraded', 'degraded', 'degraded', 'error']);
    behaviour = 'ok';
    await call('unikraft_get_user');
    expect(await health()).toBe('ok');
  });
});

describe('a provider that echoes the credential', () => {
  it('never hands it to the agent', async () => {
    behaviour = 'echo-credential';
    const result = await call('unikraft_get_user');
    const text = JSON.stringify(result);
    expect(text).toContain('Bearer [redacted]');
    expect(text).not.toContain(TOKEN);
  });
});

describe('a provider that echoes the credential in JSON escapes', () => {
  /** Whether a text shows the token, even after decoding its JSON escapes twice. */
  const shows = (text: string) => {
    const once = unescapeJson(text);
    return [text, once, unescapeJson(once)].some(
      (t) => t.includes(TOKEN) || t.includes(encodeURIComponent(TOKEN)),
    );
  };

  it.each(Object.keys(ENCODINGS))(
    '%s: never hands it to the agent in an object, array, error or text reply',
    async (encoding) => {
      encode = ENCODINGS[encoding]!;
      for (const shape of ['echo-object', 'echo-array', 'echo-error', 'echo-text'] as const) {
        behaviour = shape;
        const result = await call('unikraft_get_user');
        expect(JSON.stringify(result)).toContain('[redacted]');
        expect(shows(JSON.stringify(result)), `${shape} shows the token`).toBe(false);
      }
    },
  );

  it('leaves it out of the audit log', async () => {
    const audit = (await admin('GET', '/audit?limit=1000')).text;
    expect(audit).toContain('unikraft_get_user');
    expect(shows(audit)).toBe(false);
  });
});

describe('writes', () => {
  it('reports a write whose connection dropped after sending as write_outcome_unknown, and never retries it', async () => {
    behaviour = 'drop';
    const result = await call('unikraft_create_volume', { body: { name: 'v', size_mb: 1 } });
    expect(result.structuredContent?.error?.code).toBe('write_outcome_unknown');
    expect(requests).toBe(1);
  });

  it('reports a write whose reply is not HTTP as write_outcome_unknown', async () => {
    behaviour = 'invalid-http';
    const result = await call('unikraft_create_volume', { body: { name: 'v', size_mb: 1 } });
    expect(result.structuredContent?.error?.code).toBe('write_outcome_unknown');
    expect(requests).toBe(1);
  });

  it('reports a read whose connection dropped as upstream_unreachable', async () => {
    behaviour = 'drop';
    expect((await call('unikraft_get_user')).structuredContent?.error?.code).toBe(
      'upstream_unreachable',
    );
  });
});

describe('the total deadline', () => {
  it('ends a read whose reply trickles in forever with upstream_deadline_exceeded, audited', async () => {
    behaviour = 'trickle';
    const result = await call('unikraft_get_user');
    expect(result.structuredContent?.error?.code).toBe('upstream_deadline_exceeded');
    const [event] = (await admin('GET', '/audit?action=unikraft_get_user&limit=1')).body;
    expect(event).toMatchObject({ outcome: 'error', reason: 'upstream_deadline_exceeded' });
  });

  it('reports a write past the deadline as write_outcome_unknown, never retried', async () => {
    behaviour = 'trickle';
    const result = await call('unikraft_create_volume', { body: { name: 'v', size_mb: 1 } });
    expect(result.structuredContent?.error?.code).toBe('write_outcome_unknown');
    expect(requests).toBe(1);
  });
});

describe('provider hooks', () => {
  it("turns the sandbox wait's documented 408 into a still-running result", async () => {
    behaviour = 'still-running';
    const result = await call('unikraft_sandbox_wait_for_command_with_timeout', {
      server: { instance: 'box' },
      path: { uuid: '123e4567-e89b-12d3-a456-426614174000' },
      body: { timeout_s: 1 },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'still_running', httpStatus: 408 });
  });

  it('keeps a 408 an error for an action without that hook', async () => {
    behaviour = 'still-running';
    const result = await call('unikraft_get_user');
    expect(result.structuredContent?.error).toMatchObject({ code: 'upstream_status', status: 408 });
  });
});
