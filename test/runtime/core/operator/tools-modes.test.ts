/**
 * Tools modes set by the `portcullis` command and by the admin API against a
 * running gateway: `agent set --tools`, `workspace set --tools`, shown in
 * `agent list` (text and JSON) and `GET …/agents`; an agent without its own
 * mode follows its workspace's; `auto` serves discovery only past the
 * threshold (`PORTCULLIS_DISCOVERY_THRESHOLD`, 1 here); a bad mode is
 * refused naming the flag.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grant } from '../../../../runtime/core/operator/grants.ts';
import {
  adminClient,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../support/gateway.ts';
import { connectReviewed } from '../../../support/remote/reviewed-connection.ts';
import { startUpstream, type Upstream } from '../../../support/remote/upstream-servers.ts';
import { runPortcullisHere } from '../../../support/run-cli.ts';

const DISCOVERY = ['search_actions', 'describe_action', 'call_action'];

let gateway: TestGateway;
let upstream: Upstream;
let admin: ReturnType<typeof adminClient>;
const env = () => ({ PORTCULLIS_DATA_DIR: gateway.dataDir });
const keys: Record<string, string> = {};

beforeAll(async () => {
  [gateway, upstream] = await Promise.all([
    startTestGateway({
      environment: {
        PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
        PORTCULLIS_DISCOVERY_THRESHOLD: '1',
      },
    }),
    startUpstream('stateful'),
  ]);
  admin = adminClient(gateway.url, gateway.adminToken!);
  for (const name of ['modal', 'follower']) {
    const created = await admin('POST', '/workspaces/default/agents', { name });
    keys[name] = created.body.key as string;
  }
  // The server's reads: get_weather, count and more, past the threshold of 1.
  const ctx = gateway.running.gateway.operator('cli');
  await connectReviewed(ctx, { url: upstream.url, name: 'weather' }, 'modal');
  await connectReviewed(ctx, { url: upstream.url, name: 'second' }, 'follower');
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function toolsOf(key: string): Promise<string[]> {
  const client = await mcpClient(gateway.url, key);
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

describe('tools modes', () => {
  it('are set per agent by the command, shown in agent list, and served at once', async () => {
    expect(await toolsOf(keys.modal!)).toContain('weather__get_weather');
    const set = await runPortcullisHere(['agent', 'set', 'modal', '--tools', 'discovery'], env());
    expect(set.code).toBe(0);
    expect(await toolsOf(keys.modal!)).toEqual(DISCOVERY);
    const listed = await runPortcullisHere(['agent', 'list', '--json'], env());
    const agents = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    expect(agents.find((a) => a.name === 'modal')).toMatchObject({
      tools: 'discovery',
      toolsFrom: 'agent',
      toolsMode: 'discovery',
    });
    expect(agents.find((a) => a.name === 'follower')).toMatchObject({
      tools: 'direct',
      toolsFrom: 'workspace',
    });
    const text = await runPortcullisHere(['agent', 'list'], env());
    expect(text.stdout).toMatch(/modal\s+active\s+discovery\s/);
    expect(text.stdout).toMatch(/follower\s+active\s+direct \(workspace\)/);
    await runPortcullisHere(['agent', 'set', 'modal', '--tools', 'direct'], env());
    expect(await toolsOf(keys.modal!)).toContain('weather__get_weather');
  });

  it("make an agent without its own follow the workspace's, auto only past the threshold", async () => {
    try {
      const set = await admin('PUT', '/workspaces/default/tools-mode', { tools: 'auto' });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({ name: 'default', toolsMode: 'auto' });
      expect(await toolsOf(keys.follower!)).toEqual(DISCOVERY);
      const agents = (await admin('GET', '/workspaces/default/agents')).body as Array<{
        name: string;
        tools: string;
        toolsFrom: string;
      }>;
      expect(agents.find((a) => a.name === 'follower')).toMatchObject({
        tools: 'auto',
        toolsFrom: 'workspace',
      });
      // Held to one action, it may call no more than the threshold: each tool directly.
      const ctx = gateway.running.gateway.operator('cli');
      await grant(ctx, {
        workspace: 'default',
        agent: 'follower',
        connection: 'second',
        scope: 'actions',
        actions: ['get_weather'],
      });
      expect(await toolsOf(keys.follower!)).toEqual(['second__get_weather']);
    } finally {
      await runPortcullisHere(['workspace', 'set', '--tools', 'direct'], env());
    }
  });

  it('are set per agent by the admin API, and back to the workspace’s with workspace', async () => {
    const set = await admin('PUT', '/workspaces/default/agents/modal/tools-mode', {
      tools: 'discovery',
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ name: 'modal', tools: 'discovery', toolsFrom: 'agent' });
    const back = await admin('PUT', '/workspaces/default/agents/modal/tools-mode', {
      tools: 'workspace',
    });
    expect(back.body).toMatchObject({ toolsMode: null, toolsFrom: 'workspace' });
    expect(await toolsOf(keys.modal!)).toContain('weather__get_weather');
  });

  it('refuse a mode that is none, naming the flag', async () => {
    const refused = await runPortcullisHere(
      ['agent', 'set', 'modal', '--tools', 'sometimes'],
      env(),
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('--tools');
    const api = await admin('PUT', '/workspaces/default/tools-mode', { tools: 'workspace' });
    expect(api.status).toBe(400);
    expect(api.body.error).toMatchObject({ code: 'invalid_input', field: 'tools' });
  });
});
