/**
 * Connecting remote MCP servers by URL (seed 000's table), against real SDK v2
 * servers on loopback: nothing needed → tools pinned and quarantined, the
 * revision recorded; a key or headers needed → a draft, carried on when
 * connected again; a private address, a bad address and forbidden headers →
 * typed errors naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeActions } from '../../../../runtime/core/operator/actions.ts';
import { connectionViews } from '../../../../runtime/core/operator/connection-views.ts';
import type { OperatorContext } from '../../../../runtime/core/operator/context.ts';
import { classifyTool } from '../../../../runtime/core/operator/remote-classify.ts';
import { connectUrl } from '../../../../runtime/core/operator/remote-connections.ts';
import { startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { reasonOf } from '../../../support/reason.ts';
import { startUpstream, type Upstream } from '../../../support/remote/upstream-servers.ts';

const DEV = { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' };
const CANARY = 'canary-7f3a91c2d4e5b6a7';

let gateway: TestGateway;
let ctx: OperatorContext;
let modern: Upstream;
let stateful: Upstream;
let keyed: Upstream;

beforeAll(async () => {
  [gateway, modern, stateful, keyed] = await Promise.all([
    startTestGateway({ environment: DEV }),
    startUpstream('modern'),
    startUpstream('stateful'),
    startUpstream('stateful', { requireHeader: { name: 'X-Api-Key', value: CANARY } }),
  ]);
  ctx = gateway.running.gateway.operator('test');
});
afterAll(async () => {
  await Promise.all([gateway?.close(), modern?.close(), stateful?.close(), keyed?.close()]);
});

describe('connect-url', () => {
  it.each([
    ['a 2026-07-28 stateless server', () => modern, 'modern-srv', '2026-07-28'],
    ['a 2025-11-25 stateful server', () => stateful, 'stateful-srv', '2025-11-25'],
  ])(
    'connects %s, records its revision and quarantines every tool',
    async (_, server, name, revision) => {
      const result = await connectUrl(ctx, { workspace: 'default', url: server().url, name });
      expect(result.next).toBe('review');
      expect(result.endpoint).toMatchObject({
        revision,
        transport: 'streamable-http',
        authKind: 'none',
        draft: null,
        serverInfo: { name: expect.stringMatching(/^fixture-/), version: '1.2.3' },
      });
      expect(result.tools?.tools.sort()).toEqual(['count', 'delete_item', 'get_weather']);
      const tools = await ctx.store.remoteTools.forConnection(result.connection.id);
      expect(tools.map((t) => [t.name, t.classification, t.classificationRule])).toEqual([
        ['count', 'read', 'annotation:readOnlyHint'],
        ['delete_item', 'destructive', 'verb:delete'],
        ['get_weather', 'read', 'annotation:readOnlyHint'],
      ]);
      const policies = await ctx.store.policies.forConnection(result.connection.id);
      expect(policies.map((p) => p.state)).toEqual(['quarantined', 'quarantined', 'quarantined']);
      const views = await connectionViews(ctx, { workspace: 'default' });
      expect(views.find((v) => v.name === name)?.remote).toMatchObject({
        verified: false,
        label: `unverified server: ${new URL(server().url).host}`,
      });
    },
  );

  it('keeps a server that wants a key as a draft, and carries the draft on with the headers', async () => {
    const first = await connectUrl(ctx, { workspace: 'default', url: keyed.url, name: 'keyed' });
    expect(first.next).toBe('credential');
    expect(first.connection.status).toBe('pending');
    expect(first.endpoint.draft).toBe('credential_needed');

    const second = await connectUrl(ctx, {
      workspace: 'default',
      url: keyed.url,
      name: 'keyed',
      headers: { 'X-Api-Key': CANARY },
    });
    expect(second.next).toBe('review');
    expect(second.connection.id).toBe(first.connection.id);
    expect(second.endpoint).toMatchObject({ authKind: 'headers', headerNames: ['X-Api-Key'] });
    // Only names come back; the value is a sealed vault secret.
    expect(JSON.stringify(second)).not.toContain(CANARY);
    const views = await connectionViews(ctx, { workspace: 'default' });
    expect(JSON.stringify(views)).not.toContain(CANARY);
    const sealed = await ctx.store.credentials.forConnection(first.connection.id, null);
    expect(sealed.map((c) => c.field)).toEqual(['header:x-api-key']);
    expect(JSON.stringify(sealed)).not.toContain(CANARY);
  });

  it('blames the headers when the server refuses them', async () => {
    expect(
      await reasonOf(
        connectUrl(ctx, {
          workspace: 'default',
          url: keyed.url,
          name: 'keyed-wrong',
          headers: { 'X-Api-Key': 'wrong' },
        }),
      ),
    ).toEqual({ code: 'remote_credential_refused', field: 'credential' });
  });

  it.each([
    ['not an address', 'not a url', 'remote_url_invalid', 'url'],
    ['a javascript: address', 'javascript:alert(1)', 'remote_url_invalid', 'url'],
    ['embedded credentials', 'https://user:pw@example.com/mcp', 'remote_url_invalid', 'url'],
    ['a fragment', 'https://example.com/mcp#x', 'remote_url_invalid', 'url'],
  ])('refuses %s', async (_, url, code, field) => {
    expect(await reasonOf(connectUrl(ctx, { workspace: 'default', url }))).toEqual({ code, field });
  });

  it.each([
    ['Host', 'example.com'],
    ['Cookie', 'a=b'],
    ['Content-Length', '3'],
    ['Transfer-Encoding', 'chunked'],
    ['Connection', 'close'],
    ['Proxy-Authorization', 'x'],
    ['Sec-Fetch-Mode', 'cors'],
    ['Mcp-Session-Id', 'x'],
    ['MCP-Protocol-Version', '2025-11-25'],
    ['Mcp-Param-Region', 'eu'],
    ['Content-Encoding', 'gzip'],
    ['Authorization', 'Bearer x'],
    ['X-Key', `a\r\nX-Injected: ${CANARY}`],
    ['X-Key', `a\n${CANARY}`],
    ['X-Key', 'a\u0000b'],
    ['X-Key', 'v'.repeat(9_000)],
    ['X'.repeat(200), 'v'],
    ['Bad Name', 'v'],
  ])('refuses the header %j before anything is sent', async (name, value) => {
    const before = keyed.seenHeaders.length;
    const error = await connectUrl(ctx, {
      workspace: 'default',
      url: keyed.url,
      name: 'refused',
      headers: { [name]: value },
    }).then(
      () => ({ code: 'none', field: 'none', message: '' }),
      (e: unknown) => e as Error & { code: string; field: string },
    );
    expect(error.code).toBe('header_refused');
    expect(error.field).toMatch(/^headers\./);
    expect(error.message).not.toContain(CANARY);
    expect(keyed.seenHeaders.length).toBe(before);
  });
});

describe('classify', () => {
  it("overrides a tool's class, quarantining it when riskier, and goes back to the rules with auto", async () => {
    // A connection of its own, every tool reviewed.
    await connectUrl(ctx, { workspace: 'default', url: modern.url, name: 'classified' });
    await changeActions(ctx, 'review', {
      workspace: 'default',
      connection: 'classified',
      all: true,
    });
    const done = await classifyTool(ctx, {
      workspace: 'default',
      connection: 'classified',
      tool: 'get_weather',
      classification: 'destructive',
    });
    expect(done).toEqual({ tool: 'get_weather', classification: 'destructive', rule: 'override' });
    const connection = (await ctx.store.connections.byName(
      (await ctx.store.workspaces.byName('default'))!.id,
      'classified',
    ))!;
    expect((await ctx.store.policies.get(connection.id, 'get_weather'))?.state).toBe('quarantined');
    const back = await classifyTool(ctx, {
      workspace: 'default',
      connection: 'classified',
      tool: 'get_weather',
      classification: 'auto',
    });
    expect(back).toEqual({
      tool: 'get_weather',
      classification: 'read',
      rule: 'annotation:readOnlyHint',
    });
    expect(
      await reasonOf(
        classifyTool(ctx, {
          workspace: 'default',
          connection: 'classified',
          tool: 'nope',
          classification: 'read',
        }),
      ),
    ).toEqual({ code: 'not_found', field: 'tool' });
  });
});

describe('connect-url without the development policy', () => {
  let strict: TestGateway;
  beforeAll(async () => {
    strict = await startTestGateway();
  });
  afterAll(() => strict?.close());

  it('refuses plain http, naming the url', async () => {
    expect(
      await reasonOf(
        connectUrl(strict.running.gateway.operator('test'), {
          workspace: 'default',
          url: modern.url,
        }),
      ),
    ).toEqual({ code: 'remote_url_invalid', field: 'url' });
  });

  it.each([
    ['a loopback address', 'https://127.0.0.1:9/mcp'],
    ['a private address', 'https://10.1.2.3/mcp'],
    ['a name that resolves to loopback', 'https://localhost:9/mcp'],
  ])('refuses %s as a private network, naming the url', async (_, url) => {
    expect(
      await reasonOf(
        connectUrl(strict.running.gateway.operator('test'), { workspace: 'default', url }),
      ),
    ).toEqual({ code: 'remote_url_private', field: 'url' });
  });
});
