/**
 * Updates of a forwarded resource reach the agents subscribed to it: real
 * SDK v2 servers behind the gateway (a 2025-11-25 session server taking
 * `resources/subscribe` and calling `sendResourceUpdated`, a 2026-07-28 one
 * taking `resourceSubscriptions` on `subscriptions/listen` and publishing on
 * its listen bus), real SDK v2 clients of both eras in front of it (a
 * 2025-11-25 client subscribes and hears on its standalone GET stream, a
 * 2026-07-28 client names the URI in `listen()`), an HTTP+SSE server (the
 * SDK 1.x `SSEServerTransport`) too, on `/mcp` (the URI
 * namespaced) and on `/mcp/c/<connection>` (the server's URI). Letting go,
 * a session ended and a stream closed undo the subscription upstream; an
 * agent that may not read the resource is refused, and audited.
 */
import {
  Client,
  type McpSubscription,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpEra } from '../../../../../runtime/core/mcp/wire/protocol-version.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.ts';
import { connectReviewed } from '../../../../support/remote/reviewed-connection.ts';
import { type SseUpstream, startSseUpstream } from '../../../../support/remote/sse-upstream.ts';
import {
  startUpstream,
  type Upstream,
  type UpstreamKind,
} from '../../../../support/remote/upstream-servers.ts';

let gateway: TestGateway;
let ctx: OperatorContext;
let watcher: string;
let stranger: string;
const upstreams = new Map<UpstreamKind | 'plain', Upstream>();
let sse: SseUpstream;

beforeAll(async () => {
  gateway = await startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } });
  ctx = gateway.running.gateway.operator('test');
  ({ key: watcher } = await createAgent(ctx, { workspace: 'default', name: 'watcher' }));
  ({ key: stranger } = await createAgent(ctx, { workspace: 'default', name: 'stranger' }));
  for (const kind of ['stateful', 'modern', 'plain'] as const) {
    const upstream =
      kind === 'plain'
        ? await startUpstream('stateful', { resourcesAndPrompts: true })
        : await startUpstream(kind, { subscribable: true });
    upstreams.set(kind, upstream);
    await connectReviewed(ctx, { url: upstream.url, name: `upd-${kind}` }, 'watcher');
  }
  sse = await startSseUpstream({ subscribable: true });
  await connectReviewed(ctx, { url: sse.url, name: 'upd-sse' }, 'watcher');
});
afterAll(async () => {
  await gateway?.close();
  for (const upstream of upstreams.values()) await upstream.close();
  await sse?.close();
});

/** An SDK v2 client of `era` on `path`, collecting the resource updates it hears. */
async function agent(
  era: McpEra,
  path: string,
  key = watcher,
): Promise<{ client: Client; updates: string[] }> {
  const client = new Client(
    { name: `agent-${era}`, version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const updates: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    updates.push(notification.params.uri);
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  expect(client.getProtocolEra()).toBe(era);
  return { client, updates };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

/** Subscribes in the client's era: `resources/subscribe`, or a listen stream naming the URI. */
async function subscribe(
  client: Client,
  era: McpEra,
  uri: string,
): Promise<{ honoured: boolean; letGo: () => Promise<void> }> {
  if (era === 'legacy') {
    await client.subscribeResource({ uri });
    return { honoured: true, letGo: async () => void (await client.unsubscribeResource({ uri })) };
  }
  const listening: McpSubscription = await client.listen({ resourceSubscriptions: [uri] });
  return {
    honoured: listening.honoredFilter.resourceSubscriptions?.includes(uri) === true,
    letGo: () => listening.close(),
  };
}

/** Whether the upstream holds a subscription to `uri` now: one more subscribed than let go of. */
function heldUpstream(kind: UpstreamKind, uri: string): boolean {
  const upstream = upstreams.get(kind)!;
  const count = (list: string[]) => list.filter((seen) => seen === uri).length;
  return count(upstream.subscribed) > count(upstream.unsubscribed);
}

const CASES: Array<[UpstreamKind, McpEra, 'namespaced' | 'connection']> = [];
for (const kind of ['stateful', 'modern'] as const)
  for (const era of ['legacy', 'modern'] as const)
    for (const view of ['namespaced', 'connection'] as const) CASES.push([kind, era, view]);

describe.each(CASES)('a %s server, a %s agent, the %s view', (kind, era, view) => {
  const path = view === 'namespaced' ? '/mcp' : `/mcp/c/upd-${kind}`;
  /** A note of its own for each test, so what one leaves behind upstream shows in no other. */
  const server = (test: string) => `memo://notes/${era}-${view}-${test}`;
  const named = (test: string) =>
    view === 'namespaced' ? `upd-${kind}+${server(test)}` : server(test);

  it('declares subscriptions, relays each update under the agent’s URI, and undoes it on unsubscribe', async () => {
    const [uri, upstreamUri] = [named('relayed'), server('relayed')];
    const { client, updates } = await agent(era, path);
    try {
      expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      const subscription = await subscribe(client, era, uri);
      expect(subscription.honoured).toBe(true);
      expect(heldUpstream(kind, upstreamUri)).toBe(true);
      // A legacy client opens its standalone stream on its own: wait until an update gets through.
      await until(() => {
        upstreams.get(kind)!.updateResource(upstreamUri);
        return updates.length > 0;
      }, 'the first update');
      expect(new Set(updates)).toEqual(new Set([uri]));
      await subscription.letGo();
      await until(() => !heldUpstream(kind, upstreamUri), 'the upstream unsubscribe');
      const heard = updates.length;
      upstreams.get(kind)!.updateResource(upstreamUri);
      await new Promise((r) => setTimeout(r, 150));
      expect(updates.length).toBe(heard);
    } finally {
      await client.close();
    }
  });

  it('undoes the subscription upstream when the agent goes away without unsubscribing', async () => {
    const [uri, upstreamUri] = [named('gone'), server('gone')];
    const { client } = await agent(era, path);
    await subscribe(client, era, uri);
    expect(heldUpstream(kind, upstreamUri)).toBe(true);
    // A legacy client ends its session (DELETE); a modern one's listen stream closes with it.
    if (era === 'legacy')
      await (client.transport as StreamableHTTPClientTransport).terminateSession();
    await client.close();
    await until(() => !heldUpstream(kind, upstreamUri), 'the upstream unsubscribe');
  });
});

describe('an HTTP+SSE server (2024-11-05)', () => {
  it.each<McpEra>(['legacy', 'modern'])(
    'takes the subscription on its session and has its updates relayed to a %s agent',
    async (era) => {
      const { client, updates } = await agent(era, '/mcp');
      const uri = 'upd-sse+memo://welcome';
      try {
        expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
        const subscription = await subscribe(client, era, uri);
        expect(subscription.honoured).toBe(true);
        expect(sse.subscribed.length).toBe(sse.unsubscribed.length + 1);
        await until(() => {
          sse.updateResource('memo://welcome');
          return updates.length > 0;
        }, 'an update over HTTP+SSE');
        expect(new Set(updates)).toEqual(new Set([uri]));
        await subscription.letGo();
        await until(() => sse.subscribed.length === sse.unsubscribed.length, 'the unsubscribe');
      } finally {
        await client.close();
      }
    },
  );
});

describe('an upstream session replaced under a subscription', () => {
  it('has the subscription made again in the new session, and its updates still relayed', async () => {
    const upstream = upstreams.get('stateful')!;
    const uri = 'memo://notes/replaced';
    const { client, updates } = await agent('legacy', '/mcp');
    try {
      await client.subscribeResource({ uri: `upd-stateful+${uri}` });
      const before = upstream.sessions.length;
      // The server forgets the gateway's session; the agent's next read opens another.
      await upstream.forgetSessions();
      await client.readResource({ uri: 'upd-stateful+memo://welcome' });
      expect(upstream.sessions.length).toBeGreaterThan(before);
      await until(
        () => upstream.subscribed.filter((seen) => seen === uri).length === 2,
        'the subscription made again',
      );
      await until(() => {
        upstream.updateResource(uri);
        return updates.length > 0;
      }, 'an update from the new session');
      expect(updates).toContain(`upd-stateful+${uri}`);
    } finally {
      await client.close();
    }
  });
});

describe('a server that takes no subscriptions', () => {
  it('has a 2025-11-25 subscription refused as invalid params, and a 2026-07-28 one left out', async () => {
    for (const era of ['legacy', 'modern'] as const) {
      const { client } = await agent(era, '/mcp');
      try {
        const uri = 'upd-plain+memo://welcome';
        if (era === 'legacy') {
          const refused = await client.subscribeResource({ uri }).then(
            () => undefined,
            (error: unknown) => error as { code?: number },
          );
          expect(refused?.code).toBe(-32602);
        } else expect((await subscribe(client, era, uri)).honoured).toBe(false);
      } finally {
        await client.close();
      }
    }
  });

  it.each<McpEra>(['legacy', 'modern'])('is not declared to take them (%s)', async (era) => {
    const { client } = await agent(era, '/mcp/c/upd-plain');
    try {
      expect(client.getServerCapabilities()?.resources).toBeDefined();
      expect(client.getServerCapabilities()?.resources?.subscribe).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});

describe('an agent that may not read the resource', () => {
  it('is refused on 2025-11-25 with a typed error, and audited', async () => {
    const { client } = await agent('legacy', '/mcp', stranger);
    try {
      const refused = await client.subscribeResource({ uri: 'upd-stateful+memo://welcome' }).then(
        () => undefined,
        (error: unknown) => error as { message: string },
      );
      expect(refused?.message).toMatch(/not_granted/);
    } finally {
      await client.close();
    }
    const events = await ctx.store.audit.query({
      action: 'resources/subscribe upd-stateful+memo://welcome',
      limit: 50,
    });
    expect(
      events.some((event) => event.decision === 'denied' && event.reason === 'not_granted'),
    ).toBe(true);
  });

  it('has the URI left out of what a 2026-07-28 listen honours, and audited', async () => {
    const { client } = await agent('modern', '/mcp', stranger);
    try {
      const subscription = await subscribe(client, 'modern', 'upd-modern+memo://welcome');
      expect(subscription.honoured).toBe(false);
      await subscription.letGo();
    } finally {
      await client.close();
    }
    const events = await ctx.store.audit.query({
      action: 'resources/subscribe upd-modern+memo://welcome',
      limit: 50,
    });
    expect(
      events.some((event) => event.decision === 'denied' && event.reason === 'not_granted'),
    ).toBe(true);
  });
});
