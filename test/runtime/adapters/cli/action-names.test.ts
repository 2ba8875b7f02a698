/**
 * Every name a listing prints is one every command that takes an action
 * takes: `actions` lists a remote tool as agents see it (`everything__…`)
 * and a prompt or resource by its key (`prompt:greet`); `enable`,
 * `disable`, `review`, `grant --action` and `classify` take those, and the
 * server's own tool name too. `refresh` names the connection in the command
 * it prints. A real gateway's store, a real SDK MCP server on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { startUpstream, type Upstream } from '../../../support/remote/upstream-servers.ts';
import { runPortcullisHere } from '../../../support/run-cli.ts';

let gateway: TestGateway;
let upstream: Upstream;
const env = () => ({
  PORTCULLIS_DATA_DIR: gateway.dataDir,
  PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
});
const run = (...args: string[]) => runPortcullisHere(args, env());

beforeAll(async () => {
  [gateway, upstream] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startUpstream('stateful', { resourcesAndPrompts: true }),
  ]);
  for (const args of [
    ['connect-url', upstream.url, '--name', 'everything'],
    ['agent', 'create', 'reader'],
  ]) {
    const { code, stderr } = await run(...args);
    expect([args, code, stderr]).toEqual([args, 0, '']);
  }
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** The names the human listing prints: its first column, the header left out. */
async function listedNames(): Promise<string[]> {
  const listing = await run('actions', 'everything');
  expect(listing.code).toBe(0);
  return (
    listing.stdout
      .split('\n')
      .slice(1)
      // What changed in a changed item follows the table: not a row.
      .filter((line) => line !== '' && !line.startsWith(' ') && !line.includes(' changed since '))
      .map((line) => line.split(/\s+/)[0]!)
  );
}

describe('the names a listing prints', () => {
  it('are tools as agents see them, and prompts and resources by their keys', async () => {
    const names = await listedNames();
    expect(names).toEqual(
      expect.arrayContaining([
        'everything__get_weather',
        'everything__delete_item',
        'prompt:greet',
        'resource:memo://welcome',
      ]),
    );
  });

  it.each<[string, (name: string) => string[]]>([
    ['review', (name) => ['review', 'everything', name]],
    ['enable', (name) => ['enable', 'everything', name]],
    ['disable', (name) => ['disable', 'everything', name]],
    ['grant --action', (name) => ['grant', 'reader', 'everything', '--action', name]],
  ])('are taken by %s, each of them', async (_verb, command) => {
    for (const name of await listedNames()) {
      const outcome = await run(...command(name));
      expect([name, outcome.code, outcome.stderr]).toEqual([name, 0, '']);
    }
  });

  it.each([
    ['the name the listing prints', 'everything__delete_item'],
    ["the server's own name", 'delete_item'],
  ])('classify takes %s', async (_, name) => {
    const outcome = await run('classify', 'everything', name, 'destructive');
    expect([outcome.code, outcome.stderr]).toEqual([0, '']);
    expect(outcome.stdout).toBe('delete_item is destructive (override)\n');
  });

  it.each([
    ["the server's own tool name", 'get_weather', 'everything__get_weather'],
    ['the name a prompt has on /mcp', 'everything__greet', 'prompt:greet'],
  ])('review takes %s, and prints the listed name', async (_, given, listed) => {
    const outcome = await run('review', 'everything', given);
    expect([outcome.code, outcome.stderr]).toEqual([0, '']);
    expect(outcome.stdout.split('\n')[1]).toMatch(new RegExp(`^${listed}\\s`));
  });

  it('answers a name no listing prints with the nearest listed one', async () => {
    const outcome = await run('enable', 'everything', 'everything__get_wether');
    expect([outcome.code, outcome.stderr]).toEqual([
      1,
      'portcullis: connection everything has no action everything__get_wether; did you mean everything__get_weather? (change [action...], --class or --all) [not_found]\n',
    ]);
  });
});

describe('refresh', () => {
  it('names the connection in the command that reviews a changed tool', async () => {
    upstream.setDescription('Reports the weather of a city, in kelvin.');
    const outcome = await run('refresh', 'everything');
    expect([outcome.code, outcome.stderr]).toEqual([0, '']);
    expect(outcome.stdout).toContain('(review it again: portcullis review everything get_weather)');
    expect(outcome.stdout).not.toContain('<connection>');
  });
});
