/**
 * Discovery mode end to end: the real gateway, the SDK v2 client on both
 * wires (2025-11-25 and 2026-07-28), agent keys and access tokens from the
 * gateway's own authorization server, a local upstream behind two unikraft
 * connections and a real remote MCP server. An agent in discovery mode is
 * served `search_actions`, `describe_action` and `call_action`; search finds
 * only what it may call right now; describe and call are the direct call's
 * decision, refusals, step-up challenge and one audit event (marked as come
 * through discovery).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { McpEra } from '../../../../runtime/core/mcp/wire/protocol-version.ts';
import { changeActions } from '../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import { connect } from '../../../../runtime/core/operator/connections.ts';
import { grant } from '../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../runtime/core/operator/remote-connections.ts';
import { refreshRemote } from '../../../../runtime/core/operator/remote-refresh.ts';
import { setAgentTools, setWorkspaceTools } from '../../../../runtime/core/operator/tools-modes.ts';
import { createWorkspace } from '../../../../runtime/core/operator/workspaces.ts';
import {
  MEMBER,
  type OAuthGateway,
  startOAuthGateway,
} from '../../../support/oauth/oauth-gateway.ts';
import { codeFor, exchange, registerClient } from '../../../support/oauth/raw-flow.ts';
import { connectReviewed } from '../../../support/remote/reviewed-connection.ts';
import { startUpstream, type Upstream } from '../../../support/remote/upstream-servers.ts';

const VOLUME = { path: { uuid: '123e4567-e89b-12d3-a456-426614174000' } };
const READ = 'unikraft_get_volume_by_uuid';
const WRITE_ON = 'unikraft_create_volume';
const WRITE_OFF = 'unikraft_clone_volumes';
const DESTRUCTIVE = 'unikraft_delete_volume_by_uuid';
const REVIEWED = 'Reports the weather of a city.';

let running: OAuthGateway;
let upstream: Upstream;
const keys: Record<string, string> = {};
let readOnlyToken: string;
const ctx = () => running.gateway.running.gateway.operator('cli');
const workspace = 'default';

beforeAll(async () => {
  running = await startOAuthGateway();
  upstream = await startUpstream('modern');
  // Every agent without its own mode, a member's OAuth client too, is served discovery.
  await setWorkspaceTools(ctx(), { workspace, tools: 'discovery' });
  for (const name of ['finder', 'twin', 'bystander'])
    keys[name] = (await createAgent(ctx(), { workspace, name })).key;
  // The twin sees the finder's tools directly; the bystander holds what the finder does not.
  await setAgentTools(ctx(), { workspace, agent: 'twin', tools: 'direct' });
  await setAgentTools(ctx(), { workspace, agent: 'bystander', tools: 'direct' });
  const credential = 'upstream-token';
  await connect(ctx(), { workspace, provider: 'unikraft', name: 'staging', credential });
  for (const agent of ['finder', 'twin'])
    await grant(ctx(), { workspace, agent, connection: 'unikraft', scope: 'all' });
  await grant(ctx(), { workspace, agent: 'bystander', connection: 'staging', scope: 'all' });
  await grant(ctx(), { workspace, member: MEMBER.member, connection: 'unikraft', scope: 'all' });
  await changeActions(ctx(), 'enable', {
    workspace,
    connection: 'unikraft',
    actions: [DESTRUCTIVE],
  });
  // Another workspace's connection, granted to its own agent.
  await createWorkspace(ctx(), { name: 'elsewhere' });
  await connect(ctx(), {
    workspace: 'elsewhere',
    provider: 'unikraft',
    name: 'faraway',
    credential,
  });
  await createAgent(ctx(), { workspace: 'elsewhere', name: 'stranger' });
  await grant(ctx(), {
    workspace: 'elsewhere',
    agent: 'stranger',
    connection: 'faraway',
    scope: 'all',
  });
  await connectReviewed(ctx(), { url: upstream.url, name: 'weather' }, 'finder');
  // The same server again, never reviewed: its tools wait in quarantine.
  await connectUrl(ctx(), { workspace, url: upstream.url, name: 'fresh' });
  await grant(ctx(), { workspace, agent: 'finder', connection: 'fresh', scope: 'all' });
  const client = await registerClient(running.url);
  const tokens = await exchange(
    running.url,
    client,
    await codeFor(running.url, client, { scope: 'tools:read' }),
  );
  readOnlyToken = String(tokens.body.access_token);
});
afterAll(async () => {
  await running?.close();
  await upstream?.close();
});

async function connectAs(era: McpEra, bearer: string): Promise<Client> {
  const client = new Client(
    { name: 'portcullis-test', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
    }),
  );
  return client;
}

interface Found {
  action: string;
  connection: string;
  class: string;
}

describe.each<McpEra>(['legacy', 'modern'])('discovery mode on the %s wire', (era) => {
  const clients: Record<string, Client> = {};
  const as = async (who: string) => {
    clients[who] ??= await connectAs(era, who === 'reader' ? readOnlyToken : keys[who]!);
    return clients[who]!;
  };
  afterAll(async () => {
    for (const client of Object.values(clients)) await client.close();
  });

  const search = async (who: string, args: Record<string, unknown>) => {
    const reply = await (await as(who)).callTool({ name: 'search_actions', arguments: args });
    expect(reply.isError).toBeFalsy();
    return reply.structuredContent as { results: Found[]; hint?: string };
  };
  const direct = async (who: string, name: string, args: Record<string, unknown> = {}) =>
    (await as(who)).callTool({ name, arguments: args });
  const viaDiscovery = async (who: string, action: string, args: Record<string, unknown> = {}) =>
    (await as(who)).callTool({ name: 'call_action', arguments: { action, arguments: args } });

  it('serves the three discovery tools instead of the catalog, and the catalog in direct mode', async () => {
    const { tools } = await (await as('finder')).listTools();
    expect(tools.map((t) => t.name)).toEqual(['search_actions', 'describe_action', 'call_action']);
    const twin = (await (await as('twin')).listTools()).tools.map((t) => t.name);
    expect(twin).toContain(WRITE_ON);
    expect(twin).not.toContain('search_actions');
  });

  it('finds an action granted to this agent, native and remote', async () => {
    expect(
      (await search('finder', { query: 'create a volume' })).results.map((r) => r.action),
    ).toContain(WRITE_ON);
    expect((await search('finder', { query: 'weather of a city' })).results[0]?.action).toBe(
      'weather__get_weather',
    );
  });

  it('never finds an action it may not call: another agent’s, off, quarantined, in another workspace', async () => {
    const seen = new Set<string>();
    for (const query of [
      'volume',
      'clone volumes',
      'instances',
      'delete a volume',
      'list everything',
    ])
      for (const found of (await search('finder', { query, limit: 50 })).results)
        seen.add(found.action);
    expect(seen.size).toBeGreaterThan(5);
    expect(seen).toContain(DESTRUCTIVE);
    expect(seen).not.toContain(WRITE_OFF);
    for (const action of seen) expect(action).not.toMatch(/^(staging|faraway)__/);
    const quarantined = await search('finder', { query: 'weather', connection: 'fresh' });
    expect(quarantined.results).toEqual([]);
    const other = await search('finder', { query: 'volume', connection: 'staging' });
    expect(other.results).toEqual([]);
    expect(other.hint).toMatch(/broader/);
  });

  it('finds nothing beyond the token’s scopes; the member’s OAuth client follows the workspace mode', async () => {
    const { tools } = await (await as('reader')).listTools();
    expect(tools.map((t) => t.name)).toEqual(['search_actions', 'describe_action', 'call_action']);
    const found = (await search('reader', { query: 'create or delete a volume', limit: 50 }))
      .results;
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((r) => r.class === 'read')).toBe(true);
  });

  it('describes an action exactly as tools/list shows it in direct mode', async () => {
    const listed = (await (await as('twin')).listTools()).tools.find((t) => t.name === WRITE_ON)!;
    const reply = await (await as('finder')).callTool({
      name: 'describe_action',
      arguments: { action: WRITE_ON },
    });
    expect(reply.structuredContent).toMatchObject({
      action: WRITE_ON,
      class: 'write',
      title: listed.title,
      description: listed.description,
      inputSchema: listed.inputSchema,
      annotations: listed.annotations,
    });
  });

  it.each([
    ['another agent’s', `staging__${READ}`],
    ['an unknown', 'nothing_of_the_kind'],
    ['a write that is off', WRITE_OFF],
  ])('refuses %s action in describe and call exactly as a direct call', async (_, action) => {
    const directly = await direct('finder', action, VOLUME);
    expect(directly.isError).toBe(true);
    expect(await viaDiscovery('finder', action, VOLUME)).toEqual(directly);
    const described = await (await as('finder')).callTool({
      name: 'describe_action',
      arguments: { action },
    });
    if (action === WRITE_OFF) expect(described.isError).toBe(true);
    else expect(described).toEqual(directly);
  });

  it('gives a destructive call with a read-only token the same step-up challenge', async () => {
    // HTTP 403 with the challenge, which a client without a way to sign in again throws.
    const refusalOf = (call: Promise<unknown>) =>
      call.then(
        () => undefined,
        (error: unknown) => error as { requiredScope?: string; errorDescription?: string },
      );
    const directly = await refusalOf(direct('reader', DESTRUCTIVE, VOLUME));
    expect(directly?.requiredScope).toContain('tools:destructive');
    const discovered = await refusalOf(viaDiscovery('reader', DESTRUCTIVE, VOLUME));
    expect(discovered?.requiredScope).toBe(directly?.requiredScope);
    expect(discovered?.errorDescription).toBe(directly?.errorDescription);
  });

  it('calls an action as the direct call does, audited once under its own name, marked discovery', async () => {
    const store = running.gateway.running.gateway.store;
    const agent = (await store.agents.list((await store.workspaces.byName(workspace))!.id)).find(
      (a) => a.name === 'finder',
    )!;
    const before = (await store.audit.query({ actorId: agent.id, limit: 1 }))[0]?.id ?? 0;
    const directly = await direct('finder', READ, VOLUME);
    const discovered = await viaDiscovery('finder', READ, VOLUME);
    expect(discovered).toEqual(directly);
    expect(directly.isError).toBeFalsy();
    const events = await store.audit.query({ actorId: agent.id, afterId: before, ascending: true });
    expect(events.map((e) => [e.action, e.decision, e.outcome, e.via])).toEqual([
      [READ, 'allowed', 'ok', null],
      [READ, 'allowed', 'ok', 'discovery'],
    ]);
    expect(events[1]!.argumentHash).toBe(events[0]!.argumentHash);
  });

  it('loses a remote tool that changed upstream from search until it is reviewed', async () => {
    const found = async () =>
      (await search('finder', { query: 'weather', connection: 'weather' })).results.map(
        (r) => r.action,
      );
    expect(await found()).toContain('weather__get_weather');
    upstream.setDescription('Reports the weather, and more.');
    try {
      await refreshRemote(ctx(), { workspace, connection: 'weather' });
      await vi.waitFor(async () => expect(await found()).not.toContain('weather__get_weather'));
      const refused = await viaDiscovery('finder', 'weather__get_weather', { city: 'Oslo' });
      expect((refused.structuredContent as { error: { code: string } }).error.code).toBe(
        'contract_changed',
      );
      await changeActions(ctx(), 'review', { workspace, connection: 'weather', all: true });
      await vi.waitFor(async () => expect(await found()).toContain('weather__get_weather'));
    } finally {
      upstream.setDescription(REVIEWED);
      await refreshRemote(ctx(), { workspace, connection: 'weather' });
      await changeActions(ctx(), 'review', { workspace, connection: 'weather', all: true });
    }
  });

  it('tells a listening agent in discovery mode when what it can find changes', async () => {
    const { watch } = running.gateway.running.gateway;
    const listeningBefore = watch.listening;
    const client = await connectAs(era, keys.finder!);
    const changed = vi.fn();
    client.setNotificationHandler('notifications/tools/list_changed', changed);
    const subscription =
      era === 'modern' ? await client.listen({ toolsListChanged: true }) : undefined;
    try {
      // The legacy client opens its standalone stream on its own: wait until it is there.
      await vi.waitFor(() => expect(watch.listening).toBeGreaterThan(listeningBefore));
      await changeActions(ctx(), 'disable', {
        workspace,
        connection: 'unikraft',
        actions: [WRITE_ON],
      });
      await vi.waitFor(() => expect(changed).toHaveBeenCalled(), { timeout: 5_000 });
      const results = (await search('finder', { query: 'create a volume', limit: 50 })).results;
      expect(results.map((r) => r.action)).not.toContain(WRITE_ON);
    } finally {
      await changeActions(ctx(), 'enable', {
        workspace,
        connection: 'unikraft',
        actions: [WRITE_ON],
      });
      await subscription?.close();
      await client.close();
    }
  });
});
