/**
 * The endpoint's HTTP-level rules, over real HTTP on loopback, for both mounts
 * (straight on node:http and as an Express router).
 */

import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import {
  ErrorCode,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import express from 'express';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpRouter } from '../../../../../runtime/adapters/http/mcp-router.ts';
import { createMcpEndpoint } from '../../../../../runtime/core/mcp/server/mcp-endpoint.ts';
import { RequestStateSealer } from '../../../../../runtime/core/mcp/server/request-state.ts';
import {
  CRASH_SECRET,
  FIXTURE_AGENTS,
  FixtureBackend,
} from '../../../../support/mcp/fixture-backend.ts';
import {
  FIXTURE_STATE_KEY,
  type FixtureMount,
  type FixtureServer,
  startFixtureServer,
} from '../../../../support/mcp/fixture-server.ts';
import {
  ACCEPT_BOTH,
  errorCodeOf,
  initializeRequest,
  openSession,
  openStream,
  raw,
  rpc,
} from '../../../../support/mcp/raw-http.ts';

const SERVER_ERROR = -32000;
const SESSION_NOT_FOUND = -32001;
const UNSUPPORTED_PROTOCOL_VERSION = -32022;
const RESOURCE_NOT_FOUND_BEFORE_2026 = -32002;
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

describe.each<FixtureMount>(['node', 'express'])('the MCP endpoint mounted on %s', (mount) => {
  let server: FixtureServer;
  let session: string;

  beforeAll(async () => {
    server = await startFixtureServer({ mount });
    session = await openSession(server, 'alice');
  });
  afterAll(() => server.close());

  describe('authentication', () => {
    it('challenges a request without a credential', async () => {
      const reply = await raw(server, { agent: null, body: initializeRequest() });
      expect(reply.status).toBe(401);
      expect(reply.headers['www-authenticate']).toBe('Bearer realm="portcullis"');
      expect(errorCodeOf(reply)).toBe(SERVER_ERROR);
    });

    it('says invalid_token for a refused credential', async () => {
      const reply = await raw(server, {
        agent: null,
        headers: { authorization: 'Bearer pk_not_a_key' },
        body: initializeRequest(),
      });
      expect(reply.status).toBe(401);
      expect(reply.headers['www-authenticate']).toBe(
        'Bearer realm="portcullis", error="invalid_token"',
      );
    });

    it('authenticates before anything else, GET and DELETE included', async () => {
      for (const method of ['GET', 'DELETE', 'PUT']) {
        const reply = await raw(server, { method, agent: null, session });
        expect(reply.status).toBe(401);
      }
    });

    it('refuses a revoked agent on its next request, session or not', async () => {
      const bobSession = await openSession(server, 'bob');
      server.backend.revoked.add('agt_bob');
      try {
        const reply = await raw(server, { agent: 'bob', session: bobSession, body: rpc('ping') });
        expect(reply.status).toBe(401);
      } finally {
        server.backend.revoked.delete('agt_bob');
      }
      const again = await raw(server, { agent: 'bob', session: bobSession, body: rpc('ping') });
      expect(again.status).toBe(200);
    });
  });

  describe('DNS-rebinding protection', () => {
    it('refuses a foreign Host', async () => {
      const reply = await raw(server, {
        headers: { host: 'evil.example.com' },
        body: initializeRequest(),
      });
      expect(reply.status).toBe(403);
      expect(errorCodeOf(reply)).toBe(SERVER_ERROR);
    });

    it('refuses a foreign Origin', async () => {
      const reply = await raw(server, {
        headers: { origin: 'http://evil.example.com' },
        body: initializeRequest(),
      });
      expect(reply.status).toBe(403);
    });

    it('refuses a forged Host before looking at the credential', async () => {
      const reply = await raw(server, { agent: null, headers: { host: 'evil.example.com' } });
      expect(reply.status).toBe(403);
    });

    it('accepts loopback Host and Origin on any port', async () => {
      const reply = await raw(server, {
        headers: { host: 'localhost:1', origin: 'http://localhost:5173' },
        body: initializeRequest(),
      });
      expect(reply.status).toBe(200);
    });
  });

  describe('HTTP methods and media types', () => {
    it("opens the session's one standalone stream on GET, where tool list changes arrive", async () => {
      const stream = await openStream(server, { method: 'GET', session });
      try {
        expect(stream.status).toBe(200);
        expect(stream.headers['content-type']).toBe('text/event-stream');
        expect(stream.headers['mcp-session-id']).toBe(session);
        const second = await raw(server, {
          method: 'GET',
          session,
          headers: { accept: 'text/event-stream' },
        });
        expect(second.status).toBe(409);
        await vi.waitFor(() => expect(server.backend.watchers.size).toBe(1));
        server.backend.announceChange();
        expect(await stream.next()).toEqual({
          jsonrpc: '2.0',
          method: 'notifications/tools/list_changed',
        });
      } finally {
        stream.close();
      }
      await vi.waitFor(() => expect(server.backend.watchers.size).toBe(0));
    });

    it('refuses a GET that does not accept SSE, or names no session', async () => {
      const json = await raw(server, {
        method: 'GET',
        session,
        headers: { accept: 'application/json' },
      });
      expect(json.status).toBe(406);
      const sessionless = await raw(server, {
        method: 'GET',
        headers: { accept: 'text/event-stream' },
      });
      expect(sessionless.status).toBe(400);
    });

    it('answers other methods with 405 and the methods it allows', async () => {
      const reply = await raw(server, { method: 'PUT', session });
      expect(reply.status).toBe(405);
      expect(reply.headers.allow).toBe('GET, POST, DELETE');
    });

    it('refuses a client that does not accept SSE', async () => {
      for (const accept of ['application/json', 'text/html']) {
        const reply = await raw(server, { session, headers: { accept }, body: rpc('ping') });
        expect(reply.status).toBe(406);
      }
    });

    it('refuses a body that is not JSON by type', async () => {
      const reply = await raw(server, {
        session,
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify(rpc('ping')),
      });
      expect(reply.status).toBe(415);
    });

    it('answers a parse error for malformed JSON', async () => {
      const reply = await raw(server, { session, body: '{"jsonrpc": "2.0", "id": 1,' });
      expect(reply.status).toBe(400);
      expect(errorCodeOf(reply)).toBe(ErrorCode.ParseError);
    });

    it('answers invalid request for JSON that is not a JSON-RPC message', async () => {
      for (const body of [{ id: 1, method: 'ping' }, '"ping"', '42']) {
        const reply = await raw(server, { session, body });
        expect(reply.status).toBe(400);
        expect(errorCodeOf(reply)).toBe(ErrorCode.InvalidRequest);
      }
    });

    it('answers with one SSE event when the client accepts only SSE', async () => {
      const reply = await raw(server, {
        session,
        headers: { accept: 'text/event-stream' },
        body: rpc('ping', undefined, 77),
      });
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toBe('text/event-stream');
      const events = reply.text.split('\n\n').filter(Boolean);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatch(/^event: message\ndata: /);
      expect(JSON.parse(events[0]!.slice(events[0]!.indexOf('data: ') + 6))).toEqual({
        jsonrpc: '2.0',
        id: 77,
        result: {},
      });
    });
  });

  describe('initialization', () => {
    it('opens a session and says what the server is and can do', async () => {
      const reply = await raw(server, { body: initializeRequest() });
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toBe('application/json');
      expect(reply.headers['mcp-session-id']).toMatch(/^[\x21-\x7e]+$/);
      expect(reply.json.result).toEqual({
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: { tools: { listChanged: true }, prompts: {}, resources: {}, logging: {} },
        serverInfo: { name: 'portcullis-fixture', version: '0.0.0' },
      });
    });

    it.each([
      ['2025-11-25', '2025-11-25'],
      ['2025-06-18', '2025-06-18'],
      ['2025-03-26', '2025-03-26'],
      ['2024-11-05', LATEST_PROTOCOL_VERSION],
      ['1999-01-01', LATEST_PROTOCOL_VERSION],
    ])('negotiates %s to %s', async (requested, negotiated) => {
      const reply = await raw(server, { body: initializeRequest(requested) });
      expect(reply.json.result.protocolVersion).toBe(negotiated);
    });

    it('refuses initialize params that do not fit the schema', async () => {
      const reply = await raw(server, {
        body: rpc('initialize', { protocolVersion: 1, capabilities: {} }),
      });
      expect(reply.status).toBe(400);
      expect(errorCodeOf(reply)).toBe(ErrorCode.InvalidParams);
      expect(reply.headers['mcp-session-id']).toBeUndefined();
    });

    it('refuses to initialize a session twice', async () => {
      const reply = await raw(server, { session, body: initializeRequest() });
      expect(reply.status).toBe(400);
      expect(errorCodeOf(reply)).toBe(ErrorCode.InvalidRequest);
    });
  });

  describe('sessions', () => {
    it('requires the session header after initialization', async () => {
      const reply = await raw(server, { body: rpc('ping') });
      expect(reply.status).toBe(400);
      expect(errorCodeOf(reply)).toBe(SERVER_ERROR);
    });

    it('does not know an unknown session', async () => {
      const reply = await raw(server, { session: 'no-such-session', body: rpc('ping') });
      expect(reply.status).toBe(404);
      expect(errorCodeOf(reply)).toBe(SESSION_NOT_FOUND);
    });

    it("does not know another agent's session, and leaves it alone", async () => {
      for (const method of ['POST', 'DELETE']) {
        const reply = await raw(server, {
          method,
          agent: 'bob',
          session,
          ...(method === 'POST' ? { body: rpc('ping') } : {}),
        });
        expect(reply.status).toBe(404);
        expect(errorCodeOf(reply)).toBe(SESSION_NOT_FOUND);
      }
      expect((await raw(server, { session, body: rpc('ping') })).status).toBe(200);
    });

    it('ends a session on DELETE, after which it is unknown', async () => {
      const doomed = await openSession(server, 'alice');
      const deleted = await raw(server, { method: 'DELETE', session: doomed });
      expect(deleted.status).toBe(204);
      const after = await raw(server, { session: doomed, body: rpc('ping') });
      expect(after.status).toBe(404);
      expect((await raw(server, { method: 'DELETE', session: doomed })).status).toBe(404);
    });

    it('requires the session header on DELETE', async () => {
      expect((await raw(server, { method: 'DELETE' })).status).toBe(400);
    });

    it('validates MCP-Protocol-Version when it is sent', async () => {
      for (const version of SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v >= '2025-03-26')) {
        const reply = await raw(server, {
          session,
          headers: { 'mcp-protocol-version': version },
          body: rpc('ping'),
        });
        expect(reply.status).toBe(200);
      }
      for (const version of ['2024-11-05', '2099-01-01', 'latest']) {
        const reply = await raw(server, {
          session,
          headers: { 'mcp-protocol-version': version },
          body: rpc('ping'),
        });
        expect(reply.status).toBe(400);
        expect(errorCodeOf(reply)).toBe(UNSUPPORTED_PROTOCOL_VERSION);
        expect(reply.json.error.data.supported).toEqual(['2025-11-25', '2025-06-18', '2025-03-26']);
      }
      // 2026-07-28 is stateless: a request under its header is a modern one, here without _meta.
      const modern = await raw(server, {
        session,
        headers: { 'mcp-protocol-version': '2026-07-28' },
        body: rpc('ping'),
      });
      expect(modern.status).toBe(400);
      expect(errorCodeOf(modern)).toBe(ErrorCode.InvalidParams);
    });
  });

  describe('messages', () => {
    it('accepts notifications and client replies with 202 and no body', async () => {
      for (const body of [INITIALIZED, { jsonrpc: '2.0', id: 5, result: {} }]) {
        const reply = await raw(server, { session, body });
        expect(reply.status).toBe(202);
        expect(reply.text).toBe('');
      }
    });

    it('answers ping with an empty result under the same id', async () => {
      const reply = await raw(server, { session, body: rpc('ping', undefined, 'p-1' as never) });
      expect(reply.status).toBe(200);
      expect(reply.json).toEqual({ jsonrpc: '2.0', id: 'p-1', result: {} });
      expect(reply.headers['mcp-session-id']).toBe(session);
    });

    it('serves empty prompt and resource lists when the backend has none', async () => {
      const prompts = await raw(server, { session, body: rpc('prompts/list') });
      expect(prompts.json.result).toEqual({ prompts: [] });
      const templates = await raw(server, { session, body: rpc('resources/templates/list') });
      expect(templates.json.result).toEqual({ resourceTemplates: [] });
      const read = await raw(server, { session, body: rpc('resources/read', { uri: 'x:/y' }) });
      expect(errorCodeOf(read)).toBe(RESOURCE_NOT_FOUND_BEFORE_2026);
    });

    it('answers method not found for what it does not serve', async () => {
      for (const method of ['completion/complete', 'server/discover', 'nope']) {
        const reply = await raw(server, { session, body: rpc(method) });
        expect(reply.status).toBe(200);
        expect(errorCodeOf(reply)).toBe(ErrorCode.MethodNotFound);
      }
    });

    it('lists the tools in one page, refusing a cursor it never issued', async () => {
      const listed = await raw(server, { session, body: rpc('tools/list') });
      expect(listed.json.result.tools.map((t: { name: string }) => t.name)).toEqual([
        'echo',
        'refuse',
        'crash',
        'hold',
        'count',
        'ask',
      ]);
      expect(listed.json.result.nextCursor).toBeUndefined();
      const paged = await raw(server, { session, body: rpc('tools/list', { cursor: 'abc' }) });
      expect(errorCodeOf(paged)).toBe(ErrorCode.InvalidParams);
    });

    it.each([
      ['no name', {}],
      ['an empty name', { name: '' }],
      ['a name that is not a string', { name: 7 }],
      ['arguments that are an array', { name: 'echo', arguments: [1] }],
      ['arguments that are null', { name: 'echo', arguments: null }],
    ])('refuses a tool call with %s', async (_name, params) => {
      const reply = await raw(server, { session, body: rpc('tools/call', params) });
      expect(reply.status).toBe(200);
      expect(errorCodeOf(reply)).toBe(ErrorCode.InvalidParams);
    });

    it('calls a tool as the calling agent', async () => {
      const reply = await raw(server, {
        agent: 'alice',
        session,
        body: rpc('tools/call', { name: 'echo', arguments: { word: 'portcullis' } }),
      });
      expect(reply.json.result.structuredContent).toEqual({
        agentId: 'agt_alice',
        arguments: { word: 'portcullis' },
      });
    });

    it('turns a GatewayError into an isError result with its public reason code', async () => {
      const reply = await raw(server, { session, body: rpc('tools/call', { name: 'refuse' }) });
      expect(reply.status).toBe(200);
      const result = reply.json.result;
      expect(result.isError).toBe(true);
      expect(result.structuredContent.error).toMatchObject({ code: 'not_granted', field: '/name' });
      expect(result.content[0].text).toMatch(/^not_granted: /);
    });

    it('turns any other failure into an internal error that says nothing more', async () => {
      const reply = await raw(server, { session, body: rpc('tools/call', { name: 'crash' }) });
      expect(reply.status).toBe(200);
      expect(errorCodeOf(reply)).toBe(ErrorCode.InternalError);
      expect(reply.text).not.toContain(CRASH_SECRET);
    });
  });

  describe('cancellation', () => {
    it('aborts a running call on notifications/cancelled', async () => {
      const id = 9001;
      const call = raw(server, {
        session,
        body: rpc('tools/call', { name: 'hold', arguments: { tag: `${mount}-cancel` } }, id),
      });
      await vi.waitFor(() => expect(server.backend.holding.has(`${mount}-cancel`)).toBe(true));
      const cancelled = await raw(server, {
        session,
        body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } },
      });
      expect(cancelled.status).toBe(202);
      const reply = await call;
      expect(server.backend.aborted.has(`${mount}-cancel`)).toBe(true);
      expect(reply.json.result.structuredContent.error.code).toBe('upstream_timeout');
    });

    it("cannot cancel another session's call", async () => {
      const id = 9002;
      const tag = `${mount}-other`;
      const call = raw(server, {
        session,
        body: rpc('tools/call', { name: 'hold', arguments: { tag } }, id),
      });
      await vi.waitFor(() => expect(server.backend.holding.has(tag)).toBe(true));
      const bobSession = await openSession(server, 'bob');
      const cancel = {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: id },
      };
      expect((await raw(server, { agent: 'bob', session: bobSession, body: cancel })).status).toBe(
        202,
      );
      expect(server.backend.aborted.has(tag)).toBe(false);
      await raw(server, { session, body: cancel });
      await call;
      expect(server.backend.aborted.has(tag)).toBe(true);
    });

    it('aborts a running call when its client goes away', async () => {
      const client = new AbortController();
      const call = raw(server, {
        session,
        signal: client.signal,
        body: rpc('tools/call', { name: 'hold', arguments: { tag: `${mount}-gone` } }),
      });
      await vi.waitFor(() => expect(server.backend.holding.has(`${mount}-gone`)).toBe(true));
      client.abort();
      await expect(call).rejects.toThrow();
      await vi.waitFor(() => expect(server.backend.aborted.has(`${mount}-gone`)).toBe(true));
    });

    it('aborts running calls when their session ends', async () => {
      const ending = await openSession(server, 'alice');
      const call = raw(server, {
        session: ending,
        body: rpc('tools/call', { name: 'hold', arguments: { tag: `${mount}-ended` } }),
      });
      await vi.waitFor(() => expect(server.backend.holding.has(`${mount}-ended`)).toBe(true));
      expect((await raw(server, { method: 'DELETE', session: ending })).status).toBe(204);
      await call;
      expect(server.backend.aborted.has(`${mount}-ended`)).toBe(true);
    });
  });

  describe('batches', () => {
    it('answers a batch in a 2025-03-26 session, one reply per request', async () => {
      const old = await openSession(server, 'alice', '2025-03-26');
      const reply = await raw(server, {
        session: old,
        body: [
          rpc('ping', undefined, 1),
          INITIALIZED,
          rpc('tools/call', { name: 'echo', arguments: { n: 2 } }, 2),
        ],
      });
      expect(reply.status).toBe(200);
      expect(reply.json).toHaveLength(2);
      expect(reply.json[0]).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
      expect(reply.json[1].id).toBe(2);
      expect(reply.json[1].result.structuredContent.arguments).toEqual({ n: 2 });
      const notificationsOnly = await raw(server, { session: old, body: [INITIALIZED] });
      expect(notificationsOnly.status).toBe(202);
    });

    it('refuses a batch in a session of a revision without batches', async () => {
      for (const version of ['2025-06-18', '2025-11-25']) {
        const current = await openSession(server, 'alice', version);
        const reply = await raw(server, { session: current, body: [rpc('ping'), rpc('ping')] });
        expect(reply.status).toBe(400);
        expect(errorCodeOf(reply)).toBe(ErrorCode.InvalidRequest);
      }
    });

    it('refuses an empty batch, an oversized one, and initialize inside one', async () => {
      const old = await openSession(server, 'alice', '2025-03-26');
      for (const body of [
        [],
        Array.from({ length: 101 }, (_, i) => rpc('ping', undefined, i)),
        [initializeRequest('2025-03-26')],
      ]) {
        const reply = await raw(server, { session: old, body });
        expect(reply.status).toBe(400);
        expect(errorCodeOf(reply)).toBe(ErrorCode.InvalidRequest);
      }
    });
  });
});

describe('endpoint options', () => {
  it('names the resource metadata in the challenge', async () => {
    const server = await startFixtureServer({
      resourceMetadataUrl: 'https://gw.example.com/.well-known/oauth-protected-resource/mcp',
    });
    try {
      const reply = await raw(server, { agent: null, body: initializeRequest() });
      expect(reply.headers['www-authenticate']).toBe(
        'Bearer realm="portcullis", resource_metadata="https://gw.example.com/.well-known/oauth-protected-resource/mcp"',
      );
    } finally {
      await server.close();
    }
  });

  it('allows only the configured hosts once a list is given', async () => {
    const server = await startFixtureServer({ allowedHosts: ['gw.example.com'] });
    try {
      expect((await raw(server, { body: initializeRequest() })).status).toBe(403);
      const named = await raw(server, {
        headers: { host: 'gw.example.com' },
        body: initializeRequest(),
      });
      expect(named.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('ends sessions left idle', async () => {
    const clock = { now: 0 };
    const server = await startFixtureServer({ sessionIdleMs: 60_000, now: () => clock.now });
    try {
      const session = await openSession(server, 'alice');
      clock.now += 59_999;
      expect((await raw(server, { session, body: rpc('ping') })).status).toBe(200);
      clock.now += 60_000;
      expect((await raw(server, { session, body: rpc('ping') })).status).toBe(404);
      expect(server.endpoint.sessionCount).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('keeps at most maxSessions, ending the least recently used', async () => {
    const server = await startFixtureServer({ maxSessions: 2 });
    try {
      const first = await openSession(server, 'alice');
      const second = await openSession(server, 'bob');
      await raw(server, { session: first, body: rpc('ping') });
      const third = await openSession(server, 'alice');
      expect(server.endpoint.sessionCount).toBe(2);
      expect((await raw(server, { agent: 'bob', session: second, body: rpc('ping') })).status).toBe(
        404,
      );
      expect((await raw(server, { session: first, body: rpc('ping') })).status).toBe(200);
      expect((await raw(server, { session: third, body: rpc('ping') })).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('refuses a body over the size limit', async () => {
    for (const mount of ['node', 'express'] as const) {
      const server = await startFixtureServer({ mount, route: { bodyLimit: 1024 } });
      try {
        const session = await openSession(server, 'alice');
        const big = rpc('tools/call', { name: 'echo', arguments: { pad: 'x'.repeat(2048) } });
        const reply = await raw(server, { session, body: big });
        expect(reply.status).toBe(413);
      } finally {
        await server.close();
      }
    }
  });

  it('works behind an Express app that already parsed the JSON body', async () => {
    const endpoint = createMcpEndpoint({
      backend: new FixtureBackend(),
      requestState: new RequestStateSealer({ keys: [FIXTURE_STATE_KEY] }),
      serverInfo: { name: 'x', version: '0' },
    });
    const app = express();
    app.use(express.json());
    app.use(mcpRouter(endpoint));
    const listener = app.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    const { port } = listener.address() as AddressInfo;
    try {
      const reply = await request(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: ACCEPT_BOTH,
          authorization: `Bearer ${FIXTURE_AGENTS.alice.key}`,
        },
        body: JSON.stringify(initializeRequest()),
      });
      expect(reply.statusCode).toBe(200);
      expect(((await reply.body.json()) as { result: object }).result).toBeDefined();
    } finally {
      endpoint.close();
      listener.closeAllConnections();
      listener.close();
    }
  });

  it('refuses requests once closed', async () => {
    const server = await startFixtureServer();
    const session = await openSession(server, 'alice');
    server.endpoint.close();
    try {
      expect((await raw(server, { session, body: rpc('ping') })).status).toBe(503);
    } finally {
      await server.close();
    }
  });
});
