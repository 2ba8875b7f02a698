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
import { Cancellation } from '../../runtime/core/base/cancellation.ts';
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

export async function measurePollCost(): Promise<PollCost> {
  const upstream = await childUpstream(UPSTREAM);
  const bench = await benchGateway('tasks', { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' });
  const { gateway } = bench;
  try {
    const caller = await remoteCaller(gateway, upstream.port, 'poller');
    const call = () =>
      gateway.tools.callTool(caller, {
        ...requestContext('modern', {}),
        name: 'bench__report',
        arguments: {},
      });
    const started = (await gateway.tools.callTool(caller, {
      ...requestContext('modern', TASKS),
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
    const cost = await alternatingCpu(call, poll, { calls: CALLS, rounds: ROUNDS, warmup: WARMUP });
    return {
      callUs: cost.firstUs,
      pollUs: cost.secondUs,
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
