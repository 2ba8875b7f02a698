/**
 * mcp-remote (0.15.1, on Node 20) as a local MCP client runs it: a child
 * process speaking MCP on its stdio, signing in to the gateway with OAuth. Its
 * browser opener is pointed at `true`, so no browser starts: every authorize
 * URL it prints is handed to `signIn`, which plays the member on the consent
 * page and follows the redirect to mcp-remote's loopback callback, as the
 * browser would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from '../fixtures.ts';
import { freePort } from '../free-port.ts';

export interface McpRemoteBridge {
  /** One JSON-RPC request over its stdio: the whole reply. */
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  notify(method: string): void;
  /** The authorize URLs it printed, in order. */
  readonly authorizeUrls: string[];
  /** Resolves once `count` sign-ins have reached its callback. */
  signedIn(count: number): Promise<void>;
  /** Everything it wrote on stderr. */
  log(): string;
  close(): void;
}

/**
 * Starts mcp-remote against `serverUrl`; `signIn` answers each authorize URL
 * it prints with the location the consent page redirected to.
 */
export async function startMcpRemote(
  serverUrl: string,
  signIn: (authorizeUrl: string) => Promise<URL>,
): Promise<McpRemoteBridge> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [join(ROOT, 'node_modules/mcp-remote/dist/proxy.js'), serverUrl, String(port)],
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
  let log = '';
  const authorizeUrls: string[] = [];
  let completed = 0;
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  child.stderr!.on('data', (chunk: Buffer) => {
    log += chunk.toString('utf8');
    for (const [, url] of log.matchAll(/Please authorize this client by visiting:\s+(\S+)/g)) {
      if (url === undefined || authorizeUrls.includes(url)) continue;
      authorizeUrls.push(url);
      // A failed sign-in shows as the request that waited for it never being answered.
      void signIn(url)
        .then(async (location) => {
          await (await fetch(location)).text();
          completed++;
          for (const waiter of waiting.filter((w) => w.count <= completed)) waiter.resolve();
        })
        .catch((error: unknown) => {
          log += `\n[harness] sign-in failed: ${String(error)}\n`;
        });
    }
  });
  const replies = new Map<number, (message: Record<string, unknown>) => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const message = JSON.parse(line) as { id?: number };
    if (typeof message.id === 'number') {
      replies.get(message.id)?.(message as Record<string, unknown>);
    }
  });
  let nextId = 1;
  return {
    request: (method, params) =>
      new Promise((resolve) => {
        const id = nextId++;
        replies.set(id, resolve);
        child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      }),
    notify: (method) => {
      child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
    },
    authorizeUrls,
    signedIn: (count) =>
      count <= completed
        ? Promise.resolve()
        : new Promise((resolve) => waiting.push({ count, resolve })),
    log: () => log,
    close: () => {
      child.kill();
    },
  };
}

/** `initialize` and `notifications/initialized` over the bridge: the initialize reply. */
export async function initializeOver(bridge: McpRemoteBridge): Promise<Record<string, unknown>> {
  const init = await bridge.request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'stdio-host', version: '1.0.0' },
  });
  bridge.notify('notifications/initialized');
  return init;
}
