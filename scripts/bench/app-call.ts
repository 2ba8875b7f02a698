/**
 * What a tools/call of a tool with an MCP App costs against one without, in
 * CPU time of the gateway's process: the real gateway in process (SQLite,
 * governance, audit, the upstream client and the outbound guard) forwarding
 * to a remote MCP server (2026-07-28) through its tool backend, once
 * `plain` and once `with_app` (its `_meta.ui` names a reviewed `ui://`
 * page, pinned with its content hash, csp and permissions). The server
 * answers from a child process, so its work is not counted. Rounds
 * alternate which goes first; the figure is the median of the rounds' ratios.
 *
 *   npm run bench:apps
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openGateway } from '../../runtime/compose/open-gateway.ts';
import { configFromEnvironment } from '../../runtime/config/config.ts';
import { Cancellation } from '../../runtime/core/base/cancellation.ts';
import type { Caller } from '../../runtime/core/identity/principals/principals.ts';
import { changeActions } from '../../runtime/core/operator/actions.ts';
import { createAgent } from '../../runtime/core/operator/agents.ts';
import { grant } from '../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../runtime/core/operator/remote-connections.ts';
import { markdownTable } from './bench-table.ts';

const CALLS = 400;
const ROUNDS = 9;
const WARMUP = 300;
const APPS = {
  extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
};

/**
 * A 2026-07-28 MCP server in its own process, as small as one can be: two
 * tools answered at once, one naming an app page it serves. Prints its port.
 */
const UPSTREAM = `
const page = '<!doctype html><title>View</title><p>the view</p>';
const server = require('node:http').createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const message = JSON.parse(Buffer.concat(chunks).toString() || '{}');
    let result;
    const tool = (name, meta) => ({ name, description: 'Writes a report', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true }, ...(meta ? { _meta: meta } : {}) });
    switch (message.method) {
      case 'server/discover':
        result = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {}, resources: {} }, _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'bench-apps', version: '1.0.0' } } };
        break;
      case 'tools/list':
        result = { resultType: 'complete', ttlMs: 60000, cacheScope: 'public', tools: [tool('plain'), tool('with_app', { ui: { resourceUri: 'ui://bench/view.html' } })] };
        break;
      case 'resources/list':
        result = { resultType: 'complete', resources: [{ uri: 'ui://bench/view.html', name: 'view', mimeType: 'text/html;profile=mcp-app' }] };
        break;
      case 'resources/templates/list':
        result = { resultType: 'complete', resourceTemplates: [] };
        break;
      case 'resources/read':
        result = { resultType: 'complete', contents: [{ uri: 'ui://bench/view.html', mimeType: 'text/html;profile=mcp-app', text: page, _meta: { ui: { csp: { connectDomains: ['https://api.example.com'] }, permissions: { clipboardWrite: {} } } } }] };
        break;
      case 'tools/call':
        result = { resultType: 'complete', content: [{ type: 'text', text: 'the report, at once' }] };
        break;
      default:
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }));
        return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

export interface AppCallCost {
  /** CPU microseconds per call, median over rounds. */
  plainUs: number;
  appUs: number;
  /** Median of the rounds' app / plain ratios. */
  ratio: number;
  /** The lowest and highest of the rounds' ratios. */
  spread: [number, number];
  calls: number;
  rounds: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function measureAppCallCost(): Promise<AppCallCost> {
  const upstream = spawn(process.execPath, ['-e', UPSTREAM], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    upstream.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    upstream.once('error', reject);
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-bench-apps-'));
  const gateway = await openGateway({
    config: configFromEnvironment({
      PORT: '0',
      PORTCULLIS_DATA_DIR: dataDir,
      PORTCULLIS_LOG_LEVEL: 'error',
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
    }),
    catalogs: new URL('../../generated/', import.meta.url),
  });
  try {
    const ctx = gateway.operator('bench');
    const workspace = 'default';
    const connection = 'bench';
    await connectUrl(ctx, { workspace, url: `http://127.0.0.1:${port}/mcp`, name: connection });
    await changeActions(ctx, 'review', { workspace, connection, all: true });
    const { key } = await createAgent(ctx, { workspace, name: 'viewer' });
    await grant(ctx, { workspace, agent: 'viewer', connection, scope: 'all' });
    const caller = (await gateway.tools.authenticate(`Bearer ${key}`)) as Caller;
    const context = (clientCapabilities: Record<string, unknown>) => ({
      era: 'modern' as const,
      protocolVersion: '2026-07-28',
      clientCapabilities,
      cancel: new Cancellation(),
      progress: () => {},
      log: () => {},
      trace: undefined,
      input: undefined,
    });
    // A host that renders apps: only its list carries a tool's `_meta.ui`.
    const listed = await gateway.tools.listTools(caller, context(APPS));
    if (!listed.find((t) => t.name === 'bench__with_app')?._meta?.ui)
      throw new Error('the tool with an app is not served with it');
    const callOf = (name: string) => () =>
      gateway.tools.callTool(caller, { ...context(APPS), name, arguments: {} });
    const plain = callOf('bench__plain');
    const withApp = callOf('bench__with_app');
    for (const request of [plain, withApp]) {
      const called = (await request()) as { isError?: boolean };
      if (called.isError) throw new Error(`the call failed: ${JSON.stringify(called)}`);
    }
    for (let i = 0; i < WARMUP; i++) {
      await plain();
      await withApp();
    }
    const cpuOf = async (request: () => Promise<unknown>) => {
      const before = process.cpuUsage();
      for (let i = 0; i < CALLS; i++) await request();
      const used = process.cpuUsage(before);
      return (used.user + used.system) / CALLS;
    };
    const calls: number[] = [];
    const withApps: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const first = round % 2 === 0 ? plain : withApp;
      const second = round % 2 === 0 ? withApp : plain;
      const a = await cpuOf(first);
      const b = await cpuOf(second);
      const [c, p] = round % 2 === 0 ? [a, b] : [b, a];
      calls.push(c);
      withApps.push(p);
      ratios.push(p / c);
    }
    return {
      plainUs: median(calls),
      appUs: median(withApps),
      ratio: median(ratios),
      spread: [Math.min(...ratios), Math.max(...ratios)],
      calls: CALLS,
      rounds: ROUNDS,
    };
  } finally {
    await gateway.close();
    upstream.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cost = await measureAppCallCost();
  console.log(
    markdownTable(
      ['tools/call', 'CPU µs per call (median)', 'with app / without (median of rounds)'],
      [
        ['a tool without an app', cost.plainUs.toFixed(0), ''],
        ['a tool with a reviewed app', cost.appUs.toFixed(0), `${cost.ratio.toFixed(3)}×`],
      ],
    ),
  );
  console.log(
    `${cost.calls} calls a round, ${cost.rounds} rounds; rounds' ratios ${cost.spread.map((r) => r.toFixed(3)).join('–')}; target: with / without < 1.02`,
  );
}
