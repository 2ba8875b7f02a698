/**
 * What forwarding a task poll costs against forwarding a call, in CPU time
 * of the gateway's process: the real gateway in process (SQLite,
 * governance, audit, the upstream client and the outbound guard) forwarding
 * to a remote MCP server (2026-07-28) through its tool backend, once a
 * `tools/call` answered at once (`GovernedTools.callTool`) and once a
 * `tasks/get` of a task that server started (`GovernedTools.answerTask`:
 * the id opened, the action decided again, the poll forwarded, its reply
 * checked and redacted, one audit event). The server answers from a child
 * process, so its work is not counted. Rounds alternate which goes first;
 * the figure is the median of the rounds' ratios.
 *
 *   npm run bench:tasks
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
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

/**
 * A 2026-07-28 MCP server in its own process, as small as one can be: one
 * tool, answered at once for a client without tasks and with a task for one
 * that takes them; every `tasks/get` finds that task working. Prints its port.
 */
const UPSTREAM = `
const at = new Date().toISOString();
const task = { taskId: 'upstream-task-1', status: 'working', createdAt: at, lastUpdatedAt: at, ttlMs: 600000, pollIntervalMs: 1000 };
const server = require('node:http').createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const message = JSON.parse(Buffer.concat(chunks).toString() || '{}');
    const meta = (message.params && message.params._meta) || {};
    const caps = meta['io.modelcontextprotocol/clientCapabilities'] || {};
    const tasks = caps.extensions && caps.extensions['io.modelcontextprotocol/tasks'];
    let result;
    switch (message.method) {
      case 'server/discover':
        result = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } }, _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'bench-tasks', version: '1.0.0' } } };
        break;
      case 'tools/list':
        result = { resultType: 'complete', ttlMs: 60000, cacheScope: 'public', tools: [{ name: 'report', description: 'Writes a report', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } }] };
        break;
      case 'tools/call':
        result = tasks ? { resultType: 'task', ...task } : { resultType: 'complete', content: [{ type: 'text', text: 'the report, at once' }] };
        break;
      case 'tasks/get':
        result = { resultType: 'complete', ...task };
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

export interface PollCost {
  /** CPU microseconds per request, median over rounds. */
  callUs: number;
  pollUs: number;
  /** Median of the rounds' poll / call ratios. */
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

export async function measurePollCost(): Promise<PollCost> {
  const upstream = spawn(process.execPath, ['-e', UPSTREAM], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    upstream.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    upstream.once('error', reject);
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-bench-tasks-'));
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
    const { key } = await createAgent(ctx, { workspace, name: 'poller' });
    await grant(ctx, { workspace, agent: 'poller', connection, scope: 'all' });
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
    const call = () =>
      gateway.tools.callTool(caller, { ...context({}), name: 'bench__report', arguments: {} });
    const started = (await gateway.tools.callTool(caller, {
      ...context(TASKS),
      name: 'bench__report',
      arguments: {},
    })) as { taskId?: string };
    if (typeof started.taskId !== 'string') throw new Error('the server started no task');
    const taskId = started.taskId;
    const poll = () =>
      gateway.tools.answerTask(caller, {
        method: 'tasks/get',
        era: 'modern',
        protocolVersion: '2026-07-28',
        clientCapabilities: TASKS,
        trace: undefined,
        taskId,
        cancel: new Cancellation(),
      });
    const called = (await call()) as { isError?: boolean };
    if (called.isError) throw new Error(`the call failed: ${JSON.stringify(called)}`);
    if ((await poll())?.status !== 'working') throw new Error('the poll found no working task');
    for (let i = 0; i < WARMUP; i++) {
      await call();
      await poll();
    }
    const cpuOf = async (request: () => Promise<unknown>) => {
      const before = process.cpuUsage();
      for (let i = 0; i < CALLS; i++) await request();
      const used = process.cpuUsage(before);
      return (used.user + used.system) / CALLS;
    };
    const calls: number[] = [];
    const polls: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const first = round % 2 === 0 ? call : poll;
      const second = round % 2 === 0 ? poll : call;
      const a = await cpuOf(first);
      const b = await cpuOf(second);
      const [c, p] = round % 2 === 0 ? [a, b] : [b, a];
      calls.push(c);
      polls.push(p);
      ratios.push(p / c);
    }
    return {
      callUs: median(calls),
      pollUs: median(polls),
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
  const cost = await measurePollCost();
  console.log(
    markdownTable(
      ['request', 'CPU µs per request (median)', 'poll / call (median of rounds)'],
      [
        ['tools/call, answered at once', cost.callUs.toFixed(0), ''],
        ['tasks/get of a remote task', cost.pollUs.toFixed(0), `${cost.ratio.toFixed(2)}×`],
      ],
    ),
  );
  console.log(
    `${cost.calls} requests a round, ${cost.rounds} rounds; rounds' ratios ${cost.spread.map((r) => r.toFixed(2)).join('–')}; target: poll / call ≤ 1.00`,
  );
}
