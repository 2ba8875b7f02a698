/**
 * The README's walk-through (its _Try it against a mock_ section), run as written: the
 * mock it names (`npm run mock`, a child process), the gateway `npm start`
 * would run (in process, with the same variables), each `portcullis` line,
 * and each tool call its comments describe, with the outcome they promise.
 * Change the README and this follows; break the product and this fails.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnvironment } from '../../runtime/config/config.ts';
import { type RunningServer, startServer } from '../../runtime/server.ts';
import { ROOT } from '../support/fixtures.ts';
import { callTool, GENERATED, mcpClient, type ToolReply } from '../support/gateway.ts';
import { runPortcullisHere } from '../support/run-cli.ts';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The shell block under the walk-through's heading, line by line. */
function walkThrough(): string[] {
  const section = README.split(/^#{2,3} Try it against a mock$/m)[1] ?? '';
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('README: no sh block under "Try it against a mock"');
  return block.split('\n').filter((line) => line.trim() !== '');
}

let mock: ChildProcess | undefined;
let mockUpstreams = '';
let gateway: RunningServer | undefined;

/** Starts `npm run mock` on free ports; resolves with the override it prints. */
function startMock(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '-s', 'mock', '--', '--port', '0'], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    mock = child;
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const line = /^export PORTCULLIS_DEV_UPSTREAMS=(\S+)$/m.exec(output);
      if (line) resolve(line[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`npm run mock exited (${code}):\n${output}`)));
  });
}

beforeAll(async () => {
  mockUpstreams = await startMock();
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  if (mock?.pid !== undefined && mock.exitCode === null) {
    const exited = new Promise((resolve) => mock?.once('exit', resolve));
    process.kill(-mock.pid, 'SIGTERM');
    await exited;
  }
});

describe("the README's walk-through", () => {
  it('works as written against npm run mock', async () => {
    const lines = walkThrough();
    const upstreams = /^export PORTCULLIS_DEV_UPSTREAMS=(\S+)/m.exec(lines.join('\n'))?.[1];
    const token = /^export UKC_TOKEN=(\S+)/m.exec(lines.join('\n'))?.[1];
    const wait = /^export PORTCULLIS_APPROVAL_WAIT_MS=(\S+)/m.exec(lines.join('\n'))?.[1];
    expect([upstreams, token]).toEqual([expect.any(String), expect.any(String)]);
    const env: Record<string, string> = {
      PORTCULLIS_DATA_DIR: mkdtempSync(join(tmpdir(), 'portcullis-walkthrough-')),
      PORTCULLIS_DEV_UPSTREAMS: mockUpstreams,
      UKC_TOKEN: token!,
      ...(wait === undefined ? {} : { PORTCULLIS_APPROVAL_WAIT_MS: wait }),
    };
    // The README's override has the shape the mock prints (its ports are the defaults).
    const keys = (value: string) => value.split(',').map((pair) => pair.split('=')[0]);
    expect(keys(upstreams!)).toEqual(keys(mockUpstreams));

    const keysOf = new Map<string, string>();
    const clients: Client[] = [];
    let last: ToolReply | undefined;
    let ran = 0;
    try {
      for (const line of lines) {
        const command = line.replace(/\s+#.*$/, '').trim();
        if (command === 'npm run mock' || command.startsWith('export ')) continue;
        if (command === 'npm start') {
          gateway = await startServer(configFromEnvironment({ ...env, PORT: '0' }), GENERATED);
          continue;
        }
        if (command.startsWith('portcullis ')) {
          // `apr_…` stands for the approval the last held call named.
          const held = last?.structuredContent?.error?.detail?.approval;
          const args = command
            .split(/\s+/)
            .slice(1)
            .map((arg) => (arg === 'apr_…' && typeof held === 'string' ? held : arg));
          const outcome = await runPortcullisHere(args, env);
          expect([line, outcome.code, outcome.stderr.replace(/^first start.*\n/, '')]).toEqual([
            line,
            0,
            '',
          ]);
          const key = /\b(pck_\S+)/.exec(outcome.stdout)?.[1];
          if (args[0] === 'agent' && args[1] === 'create' && key) keysOf.set(args[2]!, key);
          if (args[0] === 'audit') expect(outcome.stdout).toContain('unikraft_create_volume');
          if (args[0] === 'audit') expect(outcome.stdout).toMatch(/\sdeploy-bot\s/);
          // Both calls, the refusal with its code and then the success (newest first).
          if (args[0] === 'audit')
            expect(outcome.stdout).toMatch(/\sallowed\s[\s\S]*\sdenied\s+action_disabled\s/);
          ran += 1;
          continue;
        }
        const call = /^# as (\S+) over MCP: tools\/call (\S+) (.+)$/.exec(line);
        if (call) {
          const [, agent, tool, args] = call;
          const client = await mcpClient(gateway!.url, keysOf.get(agent!)!);
          clients.push(client);
          last = await callTool(client, tool!, JSON.parse(args!) as Record<string, unknown>);
          ran += 1;
          continue;
        }
        const refused = /^#\s+refused: (\w+)/.exec(line);
        if (refused) {
          expect([line, last?.structuredContent?.error?.code]).toEqual([line, refused[1]]);
          continue;
        }
        if (/^#\s+allowed\b/.test(line)) {
          expect([line, last?.isError ?? false]).toEqual([line, false]);
          continue;
        }
        if (line.startsWith('#')) continue;
        throw new Error(`README walk-through: no way to run ${JSON.stringify(line)}`);
      }
    } finally {
      for (const client of clients) await client.close();
    }
    expect(ran).toBeGreaterThanOrEqual(6);
  }, 120_000);
});
