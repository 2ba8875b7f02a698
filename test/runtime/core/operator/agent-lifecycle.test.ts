/**
 * An agent's key rotated and the agent deleted, by the `portcullis` command
 * and by the admin API, against a running gateway: the old key is refused on
 * its next request, the new one works with the grants the agent had; a
 * deleted agent's grants go, its audit history stays, and its name is free.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../support/gateway.ts';
import { connectReviewed } from '../../../support/remote/reviewed-connection.ts';
import { startUpstream, type Upstream } from '../../../support/remote/upstream-servers.ts';
import { runPortcullisHere } from '../../../support/run-cli.ts';

let gateway: TestGateway;
let upstream: Upstream;
let admin: ReturnType<typeof adminClient>;
const env = () => ({ PORTCULLIS_DATA_DIR: gateway.dataDir });

beforeAll(async () => {
  [gateway, upstream] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startUpstream('stateful'),
  ]);
  admin = adminClient(gateway.url, gateway.adminToken!);
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** The tools an agent key lists on `/mcp`, or the error its session start fails with. */
async function toolsOf(key: string): Promise<string[] | 'refused'> {
  const client = await mcpClient(gateway.url, key).catch(() => undefined);
  if (client === undefined) return 'refused';
  try {
    return (await client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await client.close();
  }
}

/** Creates an agent with a reads grant on its own reviewed connection; its key. */
async function agentWithGrant(name: string): Promise<string> {
  const ctx = gateway.running.gateway.operator('test');
  const created = await runPortcullisHere(['agent', 'create', name, '--json'], env());
  expect(created.code).toBe(0);
  await connectReviewed(ctx, { url: upstream.url, name: `${name}-weather` }, name);
  return (JSON.parse(created.stdout) as { key: string }).key;
}

describe.each([
  [
    'the command',
    {
      rotate: async (name: string) => {
        const run = await runPortcullisHere(['agent', 'rotate-key', name, '--json'], env());
        expect(run.code).toBe(0);
        return (JSON.parse(run.stdout) as { key: string }).key;
      },
      remove: async (name: string) => {
        expect((await runPortcullisHere(['agent', 'delete', name], env())).code).toBe(0);
      },
    },
  ],
  [
    'the admin API',
    {
      rotate: async (name: string) => {
        const reply = await admin('POST', `/workspaces/default/agents/${name}/rotate-key`);
        expect(reply.status).toBe(200);
        return (reply.body as { key: string }).key;
      },
      remove: async (name: string) => {
        expect((await admin('DELETE', `/workspaces/default/agents/${name}`)).status).toBe(200);
      },
    },
  ],
])('by %s', (via, { rotate, remove }) => {
  const name = via === 'the command' ? 'cli-rotated' : 'api-rotated';

  it('rotates a key: the old one is refused at once, the new one keeps the grants', async () => {
    const old = await agentWithGrant(name);
    const tools = await toolsOf(old);
    expect(tools).toContain(`${name}-weather__get_weather`);
    const fresh = await rotate(name);
    expect(fresh).not.toBe(old);
    expect(await toolsOf(old)).toBe('refused');
    expect(await toolsOf(fresh)).toEqual(tools);

    await remove(name);
    expect(await toolsOf(fresh)).toBe('refused');
    const ctx = gateway.running.gateway.operator('test');
    const workspace = (await ctx.store.workspaces.byName('default'))!;
    expect((await ctx.store.agents.list(workspace.id)).map((a) => a.name)).not.toContain(name);
    const grants = await admin('GET', '/workspaces/default/grants');
    expect((grants.body as Array<{ agent: string }>).map((g) => g.agent)).not.toContain(name);
    const history = (await ctx.store.audit.query({ workspaceId: workspace.id, limit: 1000 }))
      .filter((e) => e.action.startsWith('agent.'))
      .map((e) => e.action);
    expect(history).toEqual(
      expect.arrayContaining(['agent.create', 'agent.rotate_key', 'agent.delete']),
    );
    // The name is free again.
    expect((await runPortcullisHere(['agent', 'create', name], env())).code).toBe(0);
  });
});
