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
import { markdownTable } from './bench-table.ts';
import {
  alternatingCpu,
  benchGateway,
  childUpstream,
  remoteCaller,
  requestContext,
} from './in-process.ts';

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

export async function measureAppCallCost(): Promise<AppCallCost> {
  const upstream = await childUpstream(UPSTREAM);
  const bench = await benchGateway('apps', { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' });
  const { gateway } = bench;
  try {
    const caller = await remoteCaller(gateway, upstream.port, 'viewer');
    // A host that renders apps: only its list carries a tool's `_meta.ui`.
    const listed = await gateway.tools.listTools(caller, requestContext('modern', APPS));
    if (!listed.find((t) => t.name === 'bench__with_app')?._meta?.ui)
      throw new Error('the tool with an app is not served with it');
    const callOf = (name: string) => () =>
      gateway.tools.callTool(caller, { ...requestContext('modern', APPS), name, arguments: {} });
    const plain = callOf('bench__plain');
    const withApp = callOf('bench__with_app');
    for (const request of [plain, withApp]) {
      const called = (await request()) as { isError?: boolean };
      if (called.isError) throw new Error(`the call failed: ${JSON.stringify(called)}`);
    }
    const cost = await alternatingCpu(plain, withApp, {
      calls: CALLS,
      rounds: ROUNDS,
      warmup: WARMUP,
    });
    return {
      plainUs: cost.firstUs,
      appUs: cost.secondUs,
      ratio: cost.ratio,
      spread: cost.spread,
      calls: CALLS,
      rounds: ROUNDS,
    };
  } finally {
    await bench.close();
    upstream.stop();
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
