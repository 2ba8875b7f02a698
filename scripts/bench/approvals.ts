/**
 * What holding calls for approval costs in memory: the real gateway in
 * process (SQLite, governance, audit) holding 1,000 calls to an `ask` tool
 * of a remote MCP server (in a child process, so its memory is not counted),
 * once as calls of clients without tasks, each waiting on its open request
 * (a pending promise, its approval read again every second), and once as
 * calls of clients that take tasks (answered a task at once: nothing is
 * kept but the rows). The figures are the heap and resident set grown from
 * before the calls to when all are held, after a full collection.
 *
 *   npm run bench:approvals
 */
import { Cancellation } from '../../runtime/core/base/cancellation.ts';
import { changeActions } from '../../runtime/core/operator/actions.ts';
import { markdownTable } from './bench-table.ts';
import { benchGateway, childUpstream, remoteCaller, requestContext } from './in-process.ts';

const HELD = 1_000;
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

/** A 2026-07-28 MCP server with one destructive tool; a held call never reaches it. */
const UPSTREAM = `
const server = require('node:http').createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const message = JSON.parse(Buffer.concat(chunks).toString() || '{}');
    let result;
    switch (message.method) {
      case 'server/discover':
        result = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'bench-approvals', version: '1.0.0' } } };
        break;
      case 'tools/list':
        result = { resultType: 'complete', ttlMs: 60000, cacheScope: 'public', tools: [{ name: 'drop', description: 'Drops a table', inputSchema: { type: 'object', properties: { table: { type: 'string' } } }, annotations: { destructiveHint: true } }] };
        break;
      case 'tools/call':
        result = { resultType: 'complete', content: [{ type: 'text', text: 'dropped' }] };
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

interface Grown {
  heapMb: number;
  rssMb: number;
}

function memory(): { heap: number; rss: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed, rss };
}

export async function measureHeld(): Promise<{ waiting: Grown; tasks: Grown; gc: boolean }> {
  const upstream = await childUpstream(UPSTREAM);
  const bench = await benchGateway('approvals', {
    PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
    PORTCULLIS_APPROVAL_WAIT_MS: '3600000',
  });
  const { gateway } = bench;
  const cancels: Cancellation[] = [];
  try {
    const workspace = 'default';
    const caller = await remoteCaller(gateway, upstream.port, 'asker', (ctx) =>
      changeActions(ctx, 'ask', { workspace, connection: 'bench', all: true }),
    );
    const ws = await gateway.store.workspaces.byName(workspace);
    const call = (table: string, clientCapabilities: Record<string, unknown>) => {
      const cancel = new Cancellation();
      cancels.push(cancel);
      return gateway.tools.callTool(caller, {
        ...requestContext('modern', clientCapabilities, cancel),
        name: 'bench__drop',
        arguments: { table },
      });
    };
    const pendingNow = () => gateway.store.approvals.countPending(ws!.id, new Date().toISOString());
    // Warm up: one of each, so what is loaded once is not counted.
    await call('warm-task', TASKS);
    const warm = call('warm-wait', {}).catch(() => {});
    while ((await pendingNow()) < 2) await new Promise((resolve) => setTimeout(resolve, 20));

    const before = memory();
    const waits: Promise<unknown>[] = [];
    for (let i = 0; i < HELD; i++) waits.push(call(`table-${i}`, {}).catch(() => {}));
    while ((await pendingNow()) < HELD + 2) await new Promise((resolve) => setTimeout(resolve, 50));
    const held = memory();

    const beforeTasks = memory();
    for (let i = 0; i < HELD; i++) await call(`task-table-${i}`, TASKS);
    const heldTasks = memory();

    for (const cancel of cancels) cancel.cancel();
    await Promise.all([...waits, warm]);
    const mb = (bytes: number) => bytes / 1_048_576;
    return {
      waiting: { heapMb: mb(held.heap - before.heap), rssMb: mb(held.rss - before.rss) },
      tasks: {
        heapMb: mb(heldTasks.heap - beforeTasks.heap),
        rssMb: mb(heldTasks.rss - beforeTasks.rss),
      },
      gc: typeof (globalThis as { gc?: unknown }).gc === 'function',
    };
  } finally {
    await bench.close();
    upstream.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const grown = await measureHeld();
  console.log(
    markdownTable(
      ['1,000 calls held', 'heap grown (MB)', 'resident set grown (MB)'],
      [
        [
          'clients without tasks, waiting',
          grown.waiting.heapMb.toFixed(1),
          grown.waiting.rssMb.toFixed(1),
        ],
        [
          'clients with tasks, answered a task',
          grown.tasks.heapMb.toFixed(1),
          grown.tasks.rssMb.toFixed(1),
        ],
      ],
    ),
  );
  console.log(
    `target: under 50 MB${grown.gc ? '' : ' (run without --expose-gc: figures include garbage)'}`,
  );
}
