/**
 * The prompts and resources of remote MCP connections, forwarded against
 * real SDK v2 servers (2026-07-28 and 2025-11-25) to real SDK v2 clients of
 * both eras: namespaced on /mcp (`<connection>__<prompt>`,
 * `<connection>+<uri>`), under the server's names on /mcp/c/<connection>,
 * governed by the agent's grant (a read) and audited; declared in the
 * server's capabilities only when there is something to serve, as the server
 * said when it was connected (no handshake waits on a server).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { McpEra } from '../../../../../runtime/core/mcp/wire/protocol-version.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import { refreshRemote } from '../../../../../runtime/core/operator/remote-refresh.ts';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.ts';
import { connectReviewed } from '../../../../support/remote/reviewed-connection.ts';
import {
  startUpstream,
  type Upstream,
  type UpstreamKind,
} from '../../../../support/remote/upstream-servers.ts';

let gateway: TestGateway;
let ctx: OperatorContext;
let reader: string;
let stranger: string;
const upstreams: Upstream[] = [];

beforeAll(async () => {
  gateway = await startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } });
  ctx = gateway.running.gateway.operator('test');
  ({ key: reader } = await createAgent(ctx, { workspace: 'default', name: 'reader' }));
  ({ key: stranger } = await createAgent(ctx, { workspace: 'default', name: 'stranger' }));
  for (const kind of ['modern', 'stateful'] as const) {
    const upstream = await startUpstream(kind, { resourcesAndPrompts: true });
    upstreams.push(upstream);
    await connectReviewed(ctx, { url: upstream.url, name: `docs-${kind}` }, 'reader');
  }
});
afterAll(async () => {
  for (const upstream of upstreams) await upstream.close();
  await gateway?.close();
});

async function connect(era: McpEra, key: string, path = '/mcp'): Promise<Client> {
  const client = new Client(
    { name: `reader-${era}`, version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

describe.each<McpEra>(['legacy', 'modern'])('a %s agent on /mcp', (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(era, reader);
  });
  afterAll(() => client?.close());

  it('is told prompts and resources are served', () => {
    const capabilities = client.getServerCapabilities();
    expect(capabilities?.prompts).toBeDefined();
    expect(capabilities?.resources).toBeDefined();
  });

  it('lists every connection’s prompts and resources, namespaced', async () => {
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name).sort();
    expect(prompts).toEqual(['docs-modern__greet', 'docs-stateful__greet']);
    const resources = (await client.listResources()).resources.map((r) => r.uri).sort();
    expect(resources).toEqual(['docs-modern+memo://welcome', 'docs-stateful+memo://welcome']);
    const templates = (await client.listResourceTemplates()).resourceTemplates.map(
      (t) => t.uriTemplate,
    );
    expect(templates.sort()).toEqual([
      'docs-modern+memo://notes/{id}',
      'docs-stateful+memo://notes/{id}',
    ]);
  });

  it.each<UpstreamKind>(['modern', 'stateful'])(
    'reads a %s server’s resource and template',
    async (kind) => {
      const welcome = await client.readResource({ uri: `docs-${kind}+memo://welcome` });
      expect(welcome.contents).toEqual([
        expect.objectContaining({
          uri: `docs-${kind}+memo://welcome`,
          text: `welcome from the ${kind} server`,
        }),
      ]);
      const note = await client.readResource({ uri: `docs-${kind}+memo://notes/7` });
      expect(note.contents[0]).toMatchObject({ text: 'note 7' });
    },
  );

  it.each<UpstreamKind>(['modern', 'stateful'])(
    'gets a %s server’s prompt with its arguments',
    async (kind) => {
      const prompt = await client.getPrompt({
        name: `docs-${kind}__greet`,
        arguments: { who: 'Ada' },
      });
      expect(prompt.messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'Say hello to Ada.' } },
      ]);
    },
  );

  it('audits each forwarded request', async () => {
    await client.readResource({ uri: 'docs-stateful+memo://welcome' });
    await client.getPrompt({ name: 'docs-modern__greet', arguments: { who: 'Ada' } });
    const [read] = await ctx.store.audit.query({
      action: 'resources/read docs-stateful+memo://welcome',
      limit: 1,
    });
    expect(read).toMatchObject({ decision: 'allowed', outcome: 'ok' });
    const [got] = await ctx.store.audit.query({
      action: 'prompts/get docs-modern__greet',
      limit: 1,
    });
    expect(got).toMatchObject({ decision: 'allowed', outcome: 'ok' });
    expect(got?.argumentHash).toBeTruthy();
  });
});

describe.each<McpEra>(['legacy', 'modern'])('a %s agent on /mcp/c/<connection>', (era) => {
  it('sees the server’s own names', async () => {
    const client = await connect(era, reader, '/mcp/c/docs-stateful');
    try {
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet']);
      expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([
        'memo://welcome',
      ]);
      const read = await client.readResource({ uri: 'memo://welcome' });
      expect(read.contents[0]).toMatchObject({
        uri: 'memo://welcome',
        text: 'welcome from the stateful server',
      });
      const prompt = await client.getPrompt({ name: 'greet', arguments: { who: 'Bo' } });
      expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Say hello to Bo.' });
    } finally {
      await client.close();
    }
  });
});

describe('an agent with no grant on the connections', () => {
  it('is declared both (their lists are answered), lists none and is refused a read, audited', async () => {
    const client = await connect('legacy', stranger);
    try {
      const capabilities = client.getServerCapabilities();
      expect(capabilities?.prompts).toEqual({});
      expect(capabilities?.resources).toEqual({});
      expect((await client.listResources()).resources).toEqual([]);
      // The command it names is filled in: this agent, this connection.
      await expect(client.readResource({ uri: 'docs-modern+memo://welcome' })).rejects.toThrow(
        'may not read resources of docs-modern: a grant on it that covers reads does (portcullis grant stranger docs-modern --scope reads)',
      );
      const [event] = await ctx.store.audit.query({
        action: 'resources/read docs-modern+memo://welcome',
        decision: 'denied',
        limit: 1,
      });
      expect(event).toMatchObject({ reason: 'not_granted' });
    } finally {
      await client.close();
    }
  });
});

describe.each<McpEra>(['legacy', 'modern'])('a %s handshake while a remote server hangs', (era) => {
  it('declares what the server said it serves when connected, without waiting on it', async () => {
    let hanging = false;
    const held: string[] = [];
    const upstream = await startUpstream('stateful', {
      resourcesAndPrompts: true,
      sabotage: ({ method }) => {
        if (!hanging || method !== 'initialize') return undefined;
        held.push(method);
        return { hang: true, status: 0, body: '' };
      },
    });
    upstreams.push(upstream);
    const name = `held-${era}`;
    const { endpoint } = await connectUrl(ctx, { workspace: 'default', url: upstream.url, name });
    expect(endpoint.features).toMatchObject({ prompts: true, resources: true });
    const agent = `patient-${era}`;
    const { key } = await createAgent(ctx, { workspace: 'default', name: agent });
    await grant(ctx, { workspace: 'default', agent, connection: name, scope: 'reads' });

    // From now on the server holds every new session's initialize unanswered.
    hanging = true;
    const first = await connect(era, key, `/mcp/c/${name}`);
    let settled = false;
    const listing = first.listPrompts().finally(() => {
      settled = true;
    });
    listing.catch(() => {});
    await vi.waitFor(() => expect(held).toHaveLength(1));

    const second = await connect(era, key, `/mcp/c/${name}`);
    try {
      // Its handshake is done while the server still holds the session it was asked for.
      expect(settled).toBe(false);
      expect(held).toHaveLength(1);
      const capabilities = second.getServerCapabilities();
      expect(capabilities?.prompts).toBeDefined();
      expect(capabilities?.resources).toBeDefined();
    } finally {
      await second.close();
      await first.close();
    }
  });
});

describe('a connection recorded before its server’s features were', () => {
  /** A connection of its own to a new server, its endpoint row as one written before migration 0009 reads. */
  async function unrecorded(name: string): Promise<Upstream> {
    const upstream = await startUpstream('stateful', { resourcesAndPrompts: true });
    upstreams.push(upstream);
    const { endpoint } = await connectUrl(ctx, { workspace: 'default', url: upstream.url, name });
    await ctx.store.remoteEndpoints.put({ ...endpoint, features: null });
    return upstream;
  }

  it('is declared them at once (their lists are answered), and its server is asked in the background', async () => {
    const name = 'docs-unrecorded';
    const upstream = await unrecorded(name);
    const agent = 'unrecorded-reader';
    const { key } = await createAgent(ctx, { workspace: 'default', name: agent });
    await grant(ctx, { workspace: 'default', agent, connection: name, scope: 'reads' });
    const opened = upstream.sessions.length;

    const first = await connect('legacy', key, `/mcp/c/${name}`);
    try {
      expect(first.getServerCapabilities()?.prompts).toEqual({});
    } finally {
      await first.close();
    }
    // The first handshake had the server asked in the background; the next ones declare it.
    await vi.waitFor(() => expect(upstream.sessions.length).toBeGreaterThan(opened));
    await vi.waitFor(async () => {
      const next = await connect('legacy', key, `/mcp/c/${name}`);
      try {
        expect(next.getServerCapabilities()?.prompts).toBeDefined();
      } finally {
        await next.close();
      }
    });
  });

  it('has them recorded when its tools are discovered again', async () => {
    const name = 'docs-unrecorded-refreshed';
    await unrecorded(name);
    const connection = await ctx.store.connections.byName(
      (await ctx.store.workspaces.byName('default'))!.id,
      name,
    );
    expect((await ctx.store.remoteEndpoints.byConnection(connection!.id))?.features).toBeNull();
    await refreshRemote(ctx, { workspace: 'default', connection: name });
    expect((await ctx.store.remoteEndpoints.byConnection(connection!.id))?.features).toMatchObject({
      prompts: true,
      resources: true,
    });
  });
});
