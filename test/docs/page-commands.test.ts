/**
 * The `portcullis` lines of the reference pages, run as written, in order, one
 * page per store: `docs/cli.md` against Prism on the pinned Unikraft document,
 * `docs/remote-mcp-servers.md` against a real MCP server built with the SDK on
 * loopback (its example address swapped for the server's), and
 * `docs/upstream-sign-in.md` against oidc-provider guarding an MCP server
 * (the first link followed in a browser, so signing out has tokens to revoke)
 * and `docs/operations.md`. Each must exit 0 with nothing on stderr. Where a page
 * shows alternatives for one name (`connect-url … --name example` three ways),
 * the connection is disconnected before the next alternative, as a reader
 * trying each would. Change a page and this follows; break a command and this
 * fails naming the line.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/fixtures.ts';
import { type PrismServer, startPrism } from '../support/prism.ts';
import { SignInBrowser, signInThrough } from '../support/remote/sign-in-browser.ts';
import { useSignInPeers } from '../support/remote/signed-in.ts';
import { startUpstream, type Upstream } from '../support/remote/upstream-servers.ts';
import { runPortcullisHere } from '../support/run-cli.ts';

/** Every `portcullis` line of a page's shell blocks, its comment dropped. */
function portcullisLines(page: string): string[] {
  const text = readFileSync(join(ROOT, 'docs', page), 'utf8');
  const lines: string[] = [];
  for (const [, block] of text.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)) {
    for (const line of block!.split('\n')) {
      const command = line.replace(/\s+#.*$/, '').trim();
      if (command.startsWith('portcullis ')) lines.push(command);
    }
  }
  return lines;
}

const EXAMPLE_URL = 'https://mcp.example.com/mcp';

interface Run {
  line: string;
  code: number;
  stderr: string;
}

/** Runs `lines` against one store; `rewrite` swaps what only the page's reader has (an address, a file). */
async function runAll(
  lines: string[],
  env: Record<string, string>,
  rewrite: (args: string[]) => string[] = (args) => args,
  before: (args: string[]) => Promise<void> = async () => {},
): Promise<Run[]> {
  const runs: Run[] = [];
  for (const line of lines) {
    const args = rewrite(line.split(/\s+/).slice(1));
    await before(args);
    const outcome = await runPortcullisHere(args, env);
    runs.push({ line, code: outcome.code, stderr: outcome.stderr.replace(/^first start.*\n/, '') });
  }
  return runs;
}

const clean = (runs: Run[]) => runs.map(({ line }) => ({ line, code: 0, stderr: '' }));

describe('docs/cli.md', () => {
  let prism: PrismServer;
  beforeAll(async () => {
    prism = await startPrism('unikraft', 'platform');
  }, 90_000);
  afterAll(() => prism?.stop());

  it('runs every portcullis line in order against Prism', async () => {
    const lines = portcullisLines('cli.md');
    expect(lines.length).toBeGreaterThanOrEqual(18);
    const env = {
      PORTCULLIS_DATA_DIR: mkdtempSync(join(tmpdir(), 'portcullis-docs-cli-')),
      PORTCULLIS_DEV_UPSTREAMS: `unikraft=${prism.url}`,
      UKC_TOKEN: 'any-token',
      NEW: 'another-token',
      PW: 'a long enough password',
    };
    const runs = await runAll(lines, env);
    expect(runs).toEqual(clean(runs));
  }, 120_000);
});

describe('docs/remote-mcp-servers.md', () => {
  let upstream: Upstream;
  beforeAll(async () => {
    upstream = await startUpstream('stateful', {
      resourcesAndPrompts: true,
      namedTools: [{ name: 'wipe_cache', description: 'Empties the cache.' }],
    });
  });
  afterAll(() => upstream?.close());

  it('runs every portcullis line in order against an SDK server on loopback', async () => {
    const lines = portcullisLines('remote-mcp-servers.md');
    expect(lines.length).toBeGreaterThanOrEqual(10);
    const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-docs-remote-'));
    const snippet = join(dataDir, 'snippet.json');
    writeFileSync(
      snippet,
      JSON.stringify({ mcpServers: { pasted: { type: 'http', url: upstream.url } } }),
    );
    const env = {
      PORTCULLIS_DATA_DIR: dataDir,
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
      EXAMPLE_KEY: 'example-key',
      HER_KEY: 'her-key',
    };
    // The page's `--agent a` is an agent its reader has.
    expect((await runPortcullisHere(['agent', 'create', 'a'], env)).code).toBe(0);
    let connected = false;
    const runs = await runAll(
      lines,
      env,
      (args) =>
        args.map((arg) =>
          arg === EXAMPLE_URL ? upstream.url : arg === 'snippet.json' ? snippet : arg,
        ),
      async (args) => {
        // Another way to connect the same name: the reader disconnects the first one.
        if (args[0] === 'connect-url' && connected) {
          expect((await runPortcullisHere(['disconnect', 'example'], env)).code).toBe(0);
        }
        if (args[0] === 'connect-url') connected = true;
        if (args[0] === 'disconnect') connected = false;
      },
    );
    expect(runs).toEqual(clean(runs));
  }, 120_000);
});

describe('docs/upstream-sign-in.md', () => {
  const peers = useSignInPeers();

  it('runs every portcullis line in order against an OAuth-protected server', async () => {
    const lines = portcullisLines('upstream-sign-in.md');
    expect(lines.length).toBeGreaterThanOrEqual(5);
    const env = {
      PORTCULLIS_DATA_DIR: peers.gateway.dataDir,
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
      // Where the gateway listens here (a free port, not the default :8080): the links name it.
      PORTCULLIS_PUBLIC_URL: peers.gateway.url,
      VAR: 'a-client-secret',
    };
    // What the page's reader has: the connection, waiting for a sign-in, and agent a.
    const connect = ['connect-url', peers.upstream.mcp.url, '--name', 'example'];
    expect((await runPortcullisHere(connect, env)).code).toBe(0);
    expect((await runPortcullisHere(['agent', 'create', 'a'], env)).code).toBe(0);
    const runs: Run[] = [];
    let followed = false;
    for (const line of lines) {
      const outcome = await runPortcullisHere(line.split(/\s+/).slice(1), env);
      runs.push({ line, code: outcome.code, stderr: outcome.stderr });
      if (line === 'portcullis connection sign-in example' && !followed) {
        followed = true;
        const link = /https?:\/\/\S+/.exec(outcome.stdout)?.[0];
        expect(link, outcome.stdout).toBeDefined();
        const page = await signInThrough(new SignInBrowser(), link!);
        expect(page.html).toContain('<h1>Connected</h1>');
      }
    }
    expect(runs).toEqual(clean(runs));
    expect(followed).toBe(true);
  }, 120_000);
});

describe('docs/operations.md', () => {
  it('runs every portcullis line in order', async () => {
    const lines = portcullisLines('operations.md');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    const env = { PORTCULLIS_DATA_DIR: mkdtempSync(join(tmpdir(), 'portcullis-docs-ops-')) };
    // `audit --agent deploy-bot` reads an agent the page's reader made.
    expect((await runPortcullisHere(['agent', 'create', 'deploy-bot'], env)).code).toBe(0);
    const runs = await runAll(lines, env);
    expect(runs).toEqual(clean(runs));
  }, 60_000);
});
