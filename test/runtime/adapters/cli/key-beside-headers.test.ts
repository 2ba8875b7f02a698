/**
 * A key (`Authorization: Bearer`) and other headers together, as
 * `import --help-prompt` asks a vendor's agent to write them: imported from
 * a pasted snippet and connected by URL with `--token-env` and
 * `--header-env`, every request carries both; rotating such a credential
 * takes them all. A real SDK MCP server on loopback refuses a request
 * without either.
 */
import { writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { startUpstream, type Upstream } from '../../../support/remote/upstream-servers.ts';
import { runPortcullisHere } from '../../../support/run-cli.ts';

const KEY = 'key-beside-headers-4d5e6f';
const TEAM = 'team-7a8b';
/** `${NAME}`, as a snippet writes an environment placeholder. */
const placeholder = (name: string) => ['$', '{', name, '}'].join('');

let gateway: TestGateway;
let upstream: Upstream;
/** The key the server takes now (rotated below). */
let wanted = KEY;

const refused = { status: 401, body: '{"error":"unauthorized"}' };
const guard = async (request: IncomingMessage) =>
  request.headers.authorization === `Bearer ${wanted}` && request.headers['x-team'] === TEAM
    ? undefined
    : refused;

beforeAll(async () => {
  [gateway, upstream] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startUpstream('stateful', { guard }),
  ]);
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const env = (more: Record<string, string> = {}) => ({
  PORTCULLIS_DATA_DIR: gateway.dataDir,
  PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
  VENDOR_API_KEY: KEY,
  TEAM_ID: TEAM,
  ...more,
});

describe('a key with other headers beside it', () => {
  it('is imported from the snippet the help prompt asks for', async () => {
    const file = join(gateway.dataDir, 'vendor.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          vendor: {
            type: 'http',
            url: upstream.url,
            headers: {
              Authorization: `Bearer ${placeholder('VENDOR_API_KEY')}`,
              'X-Team': placeholder('TEAM_ID'),
            },
          },
        },
      }),
    );
    const run = await runPortcullisHere(['import', file, '--json'], env());
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).not.toContain(KEY);
    expect(JSON.parse(run.stdout)).toMatchObject({
      next: 'review',
      endpoint: { authKind: 'bearer', headerNames: ['X-Team'] },
    });
  });

  it('is taken by connect-url as --token-env with --header-env', async () => {
    const run = await runPortcullisHere(
      [
        'connect-url',
        upstream.url,
        '--name',
        'vendor-by-url',
        '--token-env',
        'VENDOR_API_KEY',
        '--header-env',
        'X-Team=TEAM_ID',
      ],
      env(),
    );
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toMatch(/^connected vendor-by-url: unverified server/);
  });

  it('is rotated all together, the key given as Authorization', async () => {
    const connected = await runPortcullisHere(
      [
        'connect-url',
        upstream.url,
        '--name',
        'vendor-rotated',
        '--token-env',
        'VENDOR_API_KEY',
        '--header-env',
        'X-Team=TEAM_ID',
      ],
      env(),
    );
    expect(connected.code).toBe(0);
    const keyOnly = await runPortcullisHere(
      ['credential', 'set', 'vendor-rotated', '--token-env', 'VENDOR_API_KEY'],
      env(),
    );
    expect([keyOnly.code, keyOnly.stderr]).toEqual([
      1,
      'portcullis: credential: give exactly the headers Authorization, X-Team (change --credential-env Authorization=VAR) [invalid_input]\n',
    ]);
    wanted = 'second-key-9c0d';
    try {
      const rotated = await runPortcullisHere(
        [
          'credential',
          'set',
          'vendor-rotated',
          '--credential-env',
          'Authorization=NEW_KEY',
          '--credential-env',
          'X-Team=TEAM_ID',
        ],
        env({ NEW_KEY: wanted }),
      );
      expect([rotated.code, rotated.stderr]).toEqual([0, '']);
      const refreshed = await runPortcullisHere(['refresh', 'vendor-rotated'], env());
      expect([refreshed.code, refreshed.stderr]).toEqual([0, '']);
    } finally {
      wanted = KEY;
    }
  });
});
