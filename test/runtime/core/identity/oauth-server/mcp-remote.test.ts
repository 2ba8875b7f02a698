/**
 * mcp-remote (0.15.1, on Node 20): the stdio bridge local MCP clients use to
 * reach a remote server with OAuth. It meets the 401, discovers, registers,
 * prints the authorize URL (its browser opener is pointed at `true`, so no
 * browser starts), and waits on its own loopback callback; the harness signs
 * in on the consent page and follows the redirect to that callback, as the
 * browser would. Then tools are listed and called through its stdio.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ROOT } from '../../../../support/fixtures.ts';
import { freePort } from '../../../../support/free-port.ts';
import { consent } from '../../../../support/oauth/consent-bot.ts';
import {
  MEMBER,
  type OAuthGateway,
  READ_ARGS,
  READ_TOOL,
  startOAuthGateway,
} from '../../../../support/oauth/oauth-gateway.ts';

let running: OAuthGateway;
let bridge: ChildProcess | undefined;

beforeAll(async () => {
  running = await startOAuthGateway();
});
afterAll(async () => {
  bridge?.kill();
  await running?.close();
});

it('signs in through mcp-remote and lists and calls tools over its stdio', async () => {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(ROOT, 'node_modules/mcp-remote/dist/proxy.js'), `${running.url}/mcp`, String(port)],
    {
      env: {
        PATH: dirname(process.execPath),
        HOME: mkdtempSync(join(tmpdir(), 'mcp-remote-home-')),
        MCP_REMOTE_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'mcp-remote-')),
        BROWSER: '/bin/true',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  bridge = child;
  let log = '';
  const signedIn = new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
      const url = /Please authorize this client by visiting:\s+(\S+)/.exec(log)?.[1];
      if (url && !log.includes('\u0000seen')) {
        log += '\u0000seen';
        consent(url, MEMBER)
          .then(async ({ location }) => {
            await (await fetch(location)).text();
            resolve();
          })
          .catch(reject);
      }
    });
  });
  const replies = new Map<number, (message: Record<string, unknown>) => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const message = JSON.parse(line) as { id?: number };
    if (typeof message.id === 'number')
      replies.get(message.id)?.(message as Record<string, unknown>);
  });
  let nextId = 1;
  const request = (method: string, params: Record<string, unknown>) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const id = nextId++;
      replies.set(id, resolve);
      child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });

  await signedIn;
  expect(await running.grantConsentAgents()).toHaveLength(1);
  const init = await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'stdio-host', version: '1.0.0' },
  });
  expect(init.result).toBeDefined();
  child.stdin!.write(
    `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
  );
  const list = (await request('tools/list', {})) as { result?: { tools: Array<{ name: string }> } };
  expect(list.result?.tools.map((tool) => tool.name)).toContain(READ_TOOL);
  const call = (await request('tools/call', { name: READ_TOOL, arguments: READ_ARGS })) as {
    result?: { isError?: boolean };
  };
  expect(call.result?.isError).toBeFalsy();
}, 60_000);
