/**
 * New, changed and retired are three states, and every listing says which:
 * right after `connect-url` each tool is `new` (never reviewed), a tool whose
 * contract changes after its review is `changed`, a tool its server stops
 * offering is `retired`; the human listing, `--json` and the admin API agree.
 * A real gateway's store, a real SDK MCP server on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { startUpstream, type Upstream } from '../../../support/remote/upstream-servers.ts';
import { runPortcullisHere } from '../../../support/run-cli.ts';

let gateway: TestGateway;
let upstream: Upstream;
const run = (...args: string[]) =>
  runPortcullisHere(args, {
    PORTCULLIS_DATA_DIR: gateway.dataDir,
    PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
  });

interface Listed {
  action: string;
  state: string;
  review: string;
  contractChanged: boolean;
}

const upstreams: Upstream[] = [];

beforeAll(async () => {
  gateway = await startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } });
});

afterAll(async () => {
  await gateway?.close();
  for (const server of upstreams) await server.close();
});

/** Each test its own server, connected by `connect-url` as `name` (a test may change the server). */
async function connectNew(name: string): Promise<void> {
  upstream = await startUpstream('modern');
  upstreams.push(upstream);
  const connected = await run('connect-url', upstream.url, '--name', name);
  expect([connected.code, connected.stderr]).toEqual([0, '']);
}

/** Each tool's state column of the human listing, by the name it prints. */
async function humanStates(name: string): Promise<Record<string, string>> {
  const listing = await run('actions', name);
  expect([listing.code, listing.stderr]).toEqual([0, '']);
  const rows = listing.stdout
    .split('\n')
    .filter((line) => line.startsWith(`${name}__`))
    .map((line) => line.split(/\s{2,}/));
  return Object.fromEntries(rows.map((cells) => [cells[0]!, cells[2]!]));
}

async function jsonStates(name: string): Promise<Record<string, Omit<Listed, 'action'>>> {
  const listing = await run('actions', name, '--json');
  expect([listing.code, listing.stderr]).toEqual([0, '']);
  const rows = JSON.parse(listing.stdout) as Listed[];
  return Object.fromEntries(
    rows.map(({ action, state, review, contractChanged }) => [
      action,
      { state, review, contractChanged },
    ]),
  );
}

describe('the review state of each listed action', () => {
  it('is new right after connect-url, not changed', async () => {
    await connectNew('weather');
    const human = await humanStates('weather');
    expect(human['weather__get_weather']).toBe('quarantined (new)');
    expect(human['weather__delete_item']).toBe('quarantined (new)');
    expect(Object.values(human).some((state) => state.includes('contract changed'))).toBe(false);
    const json = await jsonStates('weather');
    expect(json['get_weather']).toEqual({
      state: 'quarantined',
      review: 'new',
      contractChanged: false,
    });
    expect(Object.values(json).every((row) => row.review === 'new' && !row.contractChanged)).toBe(
      true,
    );
  });

  it('is reviewed once reviewed, changed when the server changes a tool, retired when it drops one', async () => {
    await connectNew('changing');
    const reviewed = await run('review', 'changing', '--all');
    expect([reviewed.code, reviewed.stderr]).toEqual([0, '']);
    expect((await jsonStates('changing'))['get_weather']).toEqual({
      state: 'enabled',
      review: 'reviewed',
      contractChanged: false,
    });

    upstream.setDescription('Reports the weather, and more.');
    upstream.drop('delete_item');
    const refreshed = await run('refresh', 'changing');
    expect([refreshed.code, refreshed.stderr]).toEqual([0, '']);
    expect(refreshed.stdout).toContain('0 new, 1 changed, 1 retired');

    const human = await humanStates('changing');
    expect(human['changing__get_weather']).toBe('enabled (contract changed)');
    expect(human['changing__delete_item']).toBe('retired');
    const json = await jsonStates('changing');
    expect(json['get_weather']).toEqual({
      state: 'enabled',
      review: 'changed',
      contractChanged: true,
    });
    expect(json['delete_item']).toEqual({
      state: 'retired',
      review: 'retired',
      contractChanged: false,
    });

    // The admin API's listing says the same.
    const admin = adminClient(gateway.url, gateway.adminToken!);
    const listed = await admin<Listed[]>('GET', '/workspaces/default/connections/changing/actions');
    expect(listed.status).toBe(200);
    expect(Object.fromEntries(listed.body.map((row) => [row.action, row.review]))).toMatchObject({
      get_weather: 'changed',
      delete_item: 'retired',
    });
  });
});
