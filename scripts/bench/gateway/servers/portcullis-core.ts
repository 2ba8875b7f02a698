/**
 * The gateway's core as a benchmark child: Portcullis set up as the
 * `portcullis` child is (SQLite, audit, governance, the outbound client in
 * front of the bench upstream), its MCP endpoint driven in this process by
 * `handle()`, with no inbound HTTP and no load generator on the machine:
 * `concurrency` loops of `tools/call` on one era's wire for the duration,
 * after a warm-up. It prints one line, the calls made, the CPU this
 * process spent on them (the outbound client's and SQLite's included) and
 * the time inside each SQLite statement, then exits.
 *
 *   node portcullis-core.mjs <upstream URL> <legacy|modern> <concurrency> <duration ms> <warm-up ms>
 */

import { createMcpEndpoint } from '../../../../runtime/core/mcp/server/mcp-endpoint.ts';
import type { McpHttpRequest } from '../../../../runtime/core/mcp/wire/http-exchange.ts';
import { timeStatements } from '../core/statement-time.ts';
import { upstreamArgument } from './announce.ts';
import {
  BENCH_TOOL,
  benchAgent,
  environmentFor,
  startBenchPortcullis,
} from './bench-portcullis.ts';

const [, , , era, concurrencyText, durationText, warmupText] = process.argv;
const concurrency = Number(concurrencyText);
const durationMs = Number(durationText);
const warmupMs = Number(warmupText);
if ((era !== 'legacy' && era !== 'modern') || !(concurrency >= 1) || !(durationMs > 0)) {
  console.error(
    'usage: portcullis-core <upstream URL> <legacy|modern> <concurrency> <duration ms> <warm-up ms>',
  );
  process.exit(2);
}

const statements = timeStatements();
const { running, stop } = await startBenchPortcullis(environmentFor(upstreamArgument()));
const key = await benchAgent(running);
const { gateway } = running;
const endpoint = createMcpEndpoint({
  backend: gateway.tools,
  requestState: gateway.requestState,
  state: gateway.state,
  serverInfo: { name: 'portcullis', version: 'bench' },
});

/**
 * A POST as `mcp-route.ts` hands it over (headers as Node gives them, the
 * body parsed), its headers and params made once: per call only the body is
 * new, as the route parses a new one.
 */
function poster(headers: Record<string, string>, method: string, params: object) {
  const all = {
    host: '127.0.0.1',
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${key}`,
    ...headers,
  };
  const rawHeaders = Object.entries(all).flat();
  return (id: number): McpHttpRequest => ({
    method: 'POST',
    headers: all,
    rawHeaders,
    body: { jsonrpc: '2.0', id, method, params },
  });
}

async function callOf(wire: 'legacy' | 'modern'): Promise<(id: number) => McpHttpRequest> {
  const params = { name: BENCH_TOOL, arguments: {} };
  if (wire === 'modern') {
    const headers = {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': BENCH_TOOL,
    };
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
    };
    return poster(headers, 'tools/call', { ...params, _meta });
  }
  const initialize = poster({}, 'initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'bench', version: '1' },
  });
  const opened = await endpoint.handle(initialize(0));
  const headers = {
    'mcp-session-id': String(opened.headers['Mcp-Session-Id']),
    'mcp-protocol-version': '2025-11-25',
  };
  return poster(headers, 'tools/call', params);
}

const request = await callOf(era);
let next = 1;
/** Calls in `concurrency` loops until `ms` have passed; throws on anything but a result. */
async function load(ms: number): Promise<number> {
  let calls = 0;
  const until = performance.now() + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const reply = await endpoint.handle(request(next++));
        if (reply.status !== 200 || !reply.body?.includes('"structuredContent"'))
          throw new Error(`not a result: ${reply.status} ${reply.body?.slice(0, 200)}`);
        calls++;
      }
    }),
  );
  return calls;
}

await load(warmupMs);
statements.take();
const cpu = process.cpuUsage();
const started = performance.now();
const calls = await load(durationMs);
const spent = process.cpuUsage(cpu);
const seconds = (performance.now() - started) / 1000;
process.stdout.write(
  `${JSON.stringify({ calls, seconds, cpuUs: spent.user + spent.system, statements: statements.take() })}\n`,
);
endpoint.close();
stop();
