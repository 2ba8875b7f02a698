/**
 * MCP 2026-07-28 on the endpoint, one row per requirement
 * (`id → spec section → behaviour`), over real HTTP on loopback against the
 * fixture backend. Legacy behaviour is in http-rules.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FixtureServer, startFixtureServer } from '../../../../support/mcp/fixture-server.ts';
import {
  initializeRequest,
  MODERN,
  modern,
  modernMeta,
  openSession,
  openStream,
  type RawReply,
  raw,
} from '../../../../support/mcp/raw-http.ts';

const INVALID_PARAMS = -32602;
const METHOD_NOT_FOUND = -32601;
const HEADER_MISMATCH = -32020;
const MISSING_CAPABILITY = -32021;
const UNSUPPORTED_VERSION = -32022;

let server: FixtureServer;

beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(() => server.close());

function send(request: { body: unknown; headers: Record<string, string> }, agent?: 'bob') {
  return raw(server, { body: request.body, headers: request.headers, ...(agent ? { agent } : {}) });
}

/** A JSON-RPC error reply: its HTTP status, code and the id it names. */
function errorOf(reply: RawReply) {
  return { status: reply.status, code: reply.json?.error?.code, id: reply.json?.id };
}

type ErrorCase = [
  string,
  {
    spec: string;
    request: () => { body: unknown; headers: Record<string, string> };
    want: { status: number; code: number };
  },
];

const refusals: ErrorCase[] = [
  [
    '2026/meta-required',
    {
      spec: 'basic/index "Per-request protocol fields": a request without them is malformed',
      request: () => modern('tools/list', {}, { id: 7, meta: null }),
      want: { status: 400, code: INVALID_PARAMS },
    },
  ],
  [
    '2026/client-capabilities-required',
    {
      spec: 'basic/index: clientCapabilities is required',
      request: () =>
        modern(
          'tools/list',
          {},
          { id: 7, meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } },
        ),
      want: { status: 400, code: INVALID_PARAMS },
    },
  ],
  [
    '2026/unsupported-version',
    {
      spec: 'basic/versioning "Protocol Version Negotiation"',
      request: () =>
        modern(
          'tools/list',
          {},
          {
            id: 7,
            meta: modernMeta({ 'io.modelcontextprotocol/protocolVersion': '1900-01-01' }),
            headers: { 'mcp-protocol-version': '1900-01-01' },
          },
        ),
      want: { status: 400, code: UNSUPPORTED_VERSION },
    },
  ],
  [
    '2026/version-header-required',
    {
      spec: 'transports/streamable-http "Server Validation": a required header is missing',
      request: () => {
        const request = modern('tools/list', {}, { id: 7 });
        delete request.headers['mcp-protocol-version'];
        return request;
      },
      want: { status: 400, code: HEADER_MISMATCH },
    },
  ],
  [
    '2026/version-header-matches-meta',
    {
      spec: 'transports/streamable-http "Protocol Version Header"',
      request: () =>
        modern('tools/list', {}, { id: 7, headers: { 'mcp-protocol-version': '2025-11-25' } }),
      want: { status: 400, code: HEADER_MISMATCH },
    },
  ],
  [
    '2026/method-header-required',
    {
      spec: 'transports/streamable-http "Standard Request Headers"',
      request: () => {
        const request = modern('tools/list', {}, { id: 7 });
        delete request.headers['mcp-method'];
        return request;
      },
      want: { status: 400, code: HEADER_MISMATCH },
    },
  ],
  [
    '2026/method-header-matches-body',
    {
      spec: 'transports/streamable-http "Server Validation"',
      request: () => modern('tools/list', {}, { id: 7, headers: { 'mcp-method': 'tools/call' } }),
      want: { status: 400, code: HEADER_MISMATCH },
    },
  ],
  [
    '2026/name-header-required',
    {
      spec: 'transports/streamable-http: Mcp-Name is required for tools/call',
      request: () => {
        const request = modern('tools/call', { name: 'echo' }, { id: 7 });
        delete request.headers['mcp-name'];
        return request;
      },
      want: { status: 400, code: HEADER_MISMATCH },
    },
  ],
  [
    '2026/name-header-matches-body',
    {
      spec: 'transports/streamable-http "Server Validation"',
      request: () =>
        modern('tools/call', { name: 'echo' }, { id: 7, headers: { 'mcp-name': 'refuse' } }),
      want: { status: 400, code: HEADER_MISMATCH },
    },
  ],
  [
    '2026/name-header-broken-base64',
    {
      spec: 'transports/streamable-http "Value Encoding"',
      request: () =>
        modern(
          'tools/call',
          { name: 'echo' },
          { id: 7, headers: { 'mcp-name': '=?base64?ZWNo?=' } },
        ),
      want: { status: 400, code: HEADER_MISMATCH },
    },
  ],
  [
    '2026/ping-removed',
    {
      spec: 'changelog: ping is removed; transports: an unknown method is 404 -32601',
      request: () => modern('ping', {}, { id: 7 }),
      want: { status: 404, code: METHOD_NOT_FOUND },
    },
  ],
  [
    '2026/set-level-removed',
    {
      spec: 'changelog: logging/setLevel is removed',
      request: () => modern('logging/setLevel', { level: 'info' }, { id: 7 }),
      want: { status: 404, code: METHOD_NOT_FOUND },
    },
  ],
  [
    '2026/initialize-removed',
    {
      spec: 'basic/versioning: a modern initialize is a method the era does not have',
      request: () => modern('initialize', { protocolVersion: MODERN, capabilities: {} }, { id: 7 }),
      want: { status: 404, code: METHOD_NOT_FOUND },
    },
  ],
  [
    '2026/capability-required-for-input',
    {
      spec: 'basic/patterns/mrtr: no inputRequests the client has not declared support for',
      request: () =>
        modern(
          'tools/call',
          { name: 'ask' },
          {
            id: 7,
            meta: modernMeta({ 'io.modelcontextprotocol/clientCapabilities': {} }),
          },
        ),
      want: { status: 400, code: MISSING_CAPABILITY },
    },
  ],
];

describe('MCP 2026-07-28 on the endpoint', () => {
  it.each(refusals.map(([id, row]) => [`${id} (${row.spec})`, row] as const))(
    '%s',
    async (_id, { request, want }) => {
      expect(errorOf(await send(request()))).toEqual({ ...want, id: 7 });
    },
  );

  it('2026/client-info-optional: serves a request whose _meta has no clientInfo', async () => {
    const { 'io.modelcontextprotocol/clientInfo': _, ...meta } = modernMeta();
    const reply = await send(modern('tools/list', {}, { meta }));
    expect(reply.status).toBe(200);
    expect(reply.json.result.tools.length).toBeGreaterThan(0);
  });

  it('2026/unsupported-version: names the versions spoken and the one asked for', async () => {
    const reply = await send(
      modern(
        'tools/list',
        {},
        {
          meta: modernMeta({ 'io.modelcontextprotocol/protocolVersion': '1900-01-01' }),
          headers: { 'mcp-protocol-version': '1900-01-01' },
        },
      ),
    );
    expect(reply.json.error.data).toEqual({ supported: [MODERN], requested: '1900-01-01' });
  });

  it('2026/discover: answers the versions, capabilities and identity, cacheable', async () => {
    const reply = await send(modern('server/discover'));
    expect(reply.status).toBe(200);
    expect(reply.json.result).toEqual({
      resultType: 'complete',
      supportedVersions: [MODERN],
      capabilities: { tools: { listChanged: true }, prompts: {}, resources: {}, logging: {} },
      _meta: {
        'io.modelcontextprotocol/serverInfo': { name: 'portcullis-fixture', version: '0.0.0' },
      },
      ttlMs: expect.any(Number),
      cacheScope: 'public',
    });
  });

  it('2026/stateless: no session is minted, and a session header is ignored', async () => {
    const reply = await send(
      modern('tools/list', {}, { headers: { 'mcp-session-id': 'made-up' } }),
    );
    expect(reply.status).toBe(200);
    expect(reply.headers['mcp-session-id']).toBeUndefined();
  });

  it('2026/list-caching: tools/list is private to the agent, with a TTL and the server named', async () => {
    const { result } = (await send(modern('tools/list'))).json;
    expect(result).toMatchObject({
      resultType: 'complete',
      ttlMs: expect.any(Number),
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'portcullis-fixture' } },
    });
    expect(result.ttlMs).toBeGreaterThanOrEqual(0);
  });

  it('2026/result-type: a tool result says it is complete and who served it', async () => {
    const reply = await send(modern('tools/call', { name: 'echo', arguments: { n: 1 } }));
    expect(reply.json.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { agentId: 'agt_alice', arguments: { n: 1 } },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'portcullis-fixture' } },
    });
  });

  it('2026/name-header-base64: decodes a Base64 sentinel before comparing', async () => {
    const encoded = `=?base64?${Buffer.from('echo').toString('base64')}?=`;
    const reply = await send(
      modern('tools/call', { name: 'echo' }, { headers: { 'mcp-name': encoded } }),
    );
    expect(reply.status).toBe(200);
    expect(reply.json.result.isError).toBeUndefined();
  });

  it('2026/notifications: a notification is accepted and dropped', async () => {
    const { headers } = modern('notifications/cancelled');
    const reply = await raw(server, {
      headers,
      body: {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { _meta: modernMeta(), requestId: 1 },
      },
    });
    expect(reply.status).toBe(202);
  });

  it('2026/no-batches: a batch holding a modern request is refused', async () => {
    const reply = await raw(server, { body: [modern('tools/list').body] });
    expect(reply.status).toBe(400);
  });

  it('legacy/initialize-under-modern-header: the handshake cannot claim the modern revision', async () => {
    const reply = await raw(server, {
      headers: { 'mcp-protocol-version': MODERN },
      body: initializeRequest(),
    });
    expect(errorOf(reply)).toMatchObject({ status: 400, code: HEADER_MISMATCH });
  });

  it('legacy/error-id: a refused session request names its id', async () => {
    const reply = await raw(server, { body: { jsonrpc: '2.0', id: 42, method: 'tools/list' } });
    expect(errorOf(reply)).toEqual({ status: 400, code: -32000, id: 42 });
  });
});

describe('multi round-trip requests (2026-07-28 basic/patterns/mrtr)', () => {
  async function firstRound(nonce: string, agent?: 'bob') {
    const reply = await send(modern('tools/call', { name: 'ask', arguments: { nonce } }), agent);
    expect(reply.status).toBe(200);
    return reply.json.result;
  }

  function retry(
    nonce: string,
    requestState: unknown,
    answer: unknown = { action: 'accept', content: { name: 'Ada' } },
  ) {
    return modern('tools/call', {
      name: 'ask',
      arguments: { nonce },
      inputResponses: { name: answer },
      requestState,
    });
  }

  it('mrtr/input-required: asks for input with a sealed requestState', async () => {
    const result = await firstRound('n-1');
    expect(result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { name: { method: 'elicitation/create' } },
      requestState: expect.any(String),
    });
  });

  it('mrtr/retry: a retry with the answers and the state completes, with the state the backend kept', async () => {
    const { requestState } = await firstRound('n-2');
    const reply = await send(retry('n-2', requestState));
    expect(reply.json.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { greeted: 'Ada', state: { nonce: 'n-2' } },
    });
  });

  it('mrtr/tampered: an altered state is refused as invalid params', async () => {
    const { requestState } = await firstRound('n-3');
    const [version, body, mac] = (requestState as string).split('.');
    const altered = Buffer.from(body!, 'base64url').toString('utf8').replace('n-3', 'n-X');
    const forged = `${version}.${Buffer.from(altered).toString('base64url')}.${mac}`;
    expect(errorOf(await send(retry('n-3', forged)))).toMatchObject({
      status: 400,
      code: INVALID_PARAMS,
    });
  });

  it("mrtr/other-principal: another agent's state is refused", async () => {
    const { requestState } = await firstRound('n-4');
    expect(errorOf(await send(retry('n-4', requestState), 'bob'))).toMatchObject({
      code: INVALID_PARAMS,
    });
  });

  it('mrtr/other-call: a state presented with other arguments is refused', async () => {
    const { requestState } = await firstRound('n-5');
    expect(errorOf(await send(retry('n-6', requestState)))).toMatchObject({ code: INVALID_PARAMS });
  });

  it('mrtr/input-responses-shape: answers that are not result objects are refused', async () => {
    const { requestState } = await firstRound('n-7');
    expect(errorOf(await send(retry('n-7', requestState, 42)))).toMatchObject({
      code: INVALID_PARAMS,
    });
  });
});

describe('replies that stream (2026-07-28)', () => {
  it('stream/progress: progress arrives on the reply stream before the result', async () => {
    const { body, headers } = modern('tools/call', {
      name: 'count',
      arguments: { steps: 3 },
    });
    (body as { params: { _meta: Record<string, unknown> } }).params._meta.progressToken = 'p-1';
    const stream = await openStream(server, { body, headers });
    expect(stream.headers['content-type']).toBe('text/event-stream');
    const messages = await stream.rest();
    expect(messages.map((m) => m.method ?? 'result')).toEqual([
      'notifications/progress',
      'notifications/progress',
      'notifications/progress',
      'result',
    ]);
    expect(messages[0].params).toMatchObject({ progressToken: 'p-1', progress: 1, total: 3 });
    expect(messages[3].result.content[0].text).toBe('counted to 3');
  });

  it('stream/json-when-silent: a call with nothing to say first is one JSON body with its length', async () => {
    const reply = await send(modern('tools/call', { name: 'count', arguments: { steps: 2 } }));
    expect(reply.headers['content-type']).toBe('application/json');
    expect(Number(reply.headers['content-length'])).toBe(Buffer.byteLength(reply.text));
  });

  it('stream/log-level: log messages go only to a request that asked for their level', async () => {
    const quiet = modern('tools/call', { name: 'count', arguments: { steps: 1 } });
    (quiet.body as { params: { _meta: Record<string, unknown> } }).params._meta.progressToken = 'q';
    const silent = await (await openStream(server, quiet)).rest();
    expect(silent.some((m) => m.method === 'notifications/message')).toBe(false);

    const loud = modern(
      'tools/call',
      { name: 'count', arguments: { steps: 1 } },
      {
        meta: modernMeta({ 'io.modelcontextprotocol/logLevel': 'info' }),
      },
    );
    const heard = await (await openStream(server, loud)).rest();
    expect(heard.find((m) => m.method === 'notifications/message')?.params).toMatchObject({
      level: 'info',
      data: { step: 1 },
    });
  });

  it('stream/listen: subscriptions/listen acknowledges first, then carries list changes, each tagged', async () => {
    const stream = await openStream(
      server,
      modern(
        'subscriptions/listen',
        {
          notifications: { toolsListChanged: true, promptsListChanged: true },
        },
        { id: 'sub-1' },
      ),
    );
    try {
      expect(await stream.next()).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: {
          _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' },
          notifications: { toolsListChanged: true },
        },
      });
      await vi.waitFor(() => expect(server.backend.watchers.size).toBeGreaterThan(0));
      server.backend.announceChange();
      expect(await stream.next()).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } },
      });
    } finally {
      stream.close();
    }
  });

  it('stream/listen-closes-gracefully: ending the endpoint answers the listen request', async () => {
    const own = await startFixtureServer();
    try {
      const stream = await openStream(
        own,
        modern(
          'subscriptions/listen',
          {
            notifications: { toolsListChanged: true },
          },
          { id: 9 },
        ),
      );
      await stream.next();
      own.endpoint.close();
      expect(await stream.rest()).toEqual([
        {
          jsonrpc: '2.0',
          id: 9,
          result: {
            resultType: 'complete',
            _meta: { 'io.modelcontextprotocol/subscriptionId': 9 },
          },
        },
      ]);
    } finally {
      await own.close();
    }
  });

  it('stream/cancel: a client that goes away cancels the call', async () => {
    const client = new AbortController();
    const { body, headers } = modern('tools/call', {
      name: 'hold',
      arguments: { tag: 'modern-gone' },
    });
    const call = raw(server, { body, headers, signal: client.signal });
    await vi.waitFor(() => expect(server.backend.holding.has('modern-gone')).toBe(true));
    client.abort();
    await expect(call).rejects.toThrow();
    await vi.waitFor(() => expect(server.backend.aborted.has('modern-gone')).toBe(true));
  });

  it('stream/cancel-streaming: closing a reply stream cancels the call behind it', async () => {
    const request = modern('tools/call', { name: 'count', arguments: { steps: 1000 } });
    (request.body as { params: { _meta: Record<string, unknown> } }).params._meta.progressToken =
      'c';
    const stream = await openStream(server, request);
    await stream.next();
    stream.close();
    await vi.waitFor(() => expect(server.backend.countsCancelled).toBeGreaterThan(0));
  });
});

describe('input on a legacy session (2025-11-25: server-to-client requests on the reply stream)', () => {
  async function sessionWith(capabilities: Record<string, unknown>) {
    const reply = await raw(server, {
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities,
          clientInfo: { name: 'legacy', version: '1' },
        },
      },
    });
    return reply.headers['mcp-session-id'] as string;
  }

  it('legacy/elicitation-bridge: the call asks on its reply stream and completes with the answer', async () => {
    const session = await sessionWith({ elicitation: {} });
    const stream = await openStream(server, {
      session,
      body: {
        jsonrpc: '2.0',
        id: 'call-1',
        method: 'tools/call',
        params: { name: 'ask', arguments: { nonce: 'L' } },
      },
    });
    const asked = await stream.next();
    expect(asked).toMatchObject({
      jsonrpc: '2.0',
      method: 'elicitation/create',
      id: expect.anything(),
    });
    const answered = await raw(server, {
      session,
      body: {
        jsonrpc: '2.0',
        id: asked.id,
        result: { action: 'accept', content: { name: 'Grace' } },
      },
    });
    expect(answered.status).toBe(202);
    const [final] = await stream.rest();
    expect(final).toMatchObject({
      id: 'call-1',
      result: { structuredContent: { greeted: 'Grace', state: { nonce: 'L' } } },
    });
    expect(final.result.resultType).toBeUndefined();
  });

  it('legacy/elicitation-needs-capability: a client without it gets -32021, not a request', async () => {
    const session = await sessionWith({});
    const reply = await raw(server, {
      session,
      body: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'ask' } },
    });
    expect(reply.json.error).toMatchObject({
      code: MISSING_CAPABILITY,
      data: { requiredCapabilities: { elicitation: {} } },
    });
  });

  it('legacy/progress: progress goes on the reply stream before the result', async () => {
    const session = await openSession(server, 'alice');
    const stream = await openStream(server, {
      session,
      body: {
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'count', arguments: { steps: 2 }, _meta: { progressToken: 7 } },
      },
    });
    const messages = await stream.rest();
    expect(messages.map((m) => m.method ?? m.id)).toEqual([
      'notifications/progress',
      'notifications/progress',
      4,
    ]);
    expect(messages[2].result.resultType).toBeUndefined();
  });
});
