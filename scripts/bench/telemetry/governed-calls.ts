/**
 * A benchmark child: the real gateway (SQLite, governance, audit, metrics,
 * the outbound client in front of the benchmark's REST upstream), its MCP
 * endpoint driven in this process by `handle()` on the 2025-11-25 wire,
 * with tracing as the `OTEL_*` variables of its environment say (the SDK
 * started as `main.ts` starts it). After a warm-up, `concurrency` loops of
 * `tools/call` for the duration; it prints one line, the calls, the CPU
 * this process spent on them (the span exporter's included) and the spans
 * the batch processor dropped, then exits.
 *
 *   tsx governed-calls.ts <upstream URL> <concurrency> <duration ms> <warm-up ms>
 */
import { DiagLogLevel, diag, type ProxyTracerProvider, trace } from '@opentelemetry/api';
import { startTracing } from '../../../runtime/adapters/otel/tracing-sdk.ts';
import { createMcpEndpoint } from '../../../runtime/core/mcp/server/mcp-endpoint.ts';
import type { McpHttpRequest } from '../../../runtime/core/mcp/wire/http-exchange.ts';
import {
  BENCH_TOOL,
  benchAgent,
  environmentFor,
  startBenchPortcullis,
} from '../gateway/servers/bench-portcullis.ts';

const [, , upstreamText, concurrencyText, durationText, warmupText] = process.argv;
const concurrency = Number(concurrencyText);
const durationMs = Number(durationText);
const warmupMs = Number(warmupText);
if (!upstreamText || !(concurrency >= 1) || !(durationMs > 0)) {
  console.error('usage: governed-calls <upstream URL> <concurrency> <duration ms> <warm-up ms>');
  process.exit(2);
}

// The batch processor says, as a warning, how many spans it dropped with its queue full.
let dropped = 0;
const warned = (message: string) => {
  const count = /Dropped (\d+) spans/.exec(message)?.[1];
  if (count !== undefined) dropped += Number(count);
};
diag.setLogger(
  { error: () => {}, warn: warned, info: () => {}, debug: () => {}, verbose: () => {} },
  DiagLogLevel.WARN,
);
const tracing = await startTracing(process.env);
const { running, stop } = await startBenchPortcullis(environmentFor(new URL(upstreamText)));
const key = await benchAgent(running);
const { gateway } = running;
const endpoint = createMcpEndpoint({
  backend: gateway.tools,
  requestState: gateway.requestState,
  state: gateway.state,
  serverInfo: { name: 'portcullis', version: 'bench' },
});

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

const opened = await endpoint.handle(
  poster({}, 'initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'bench', version: '1' },
  })(0),
);
const request = poster(
  {
    'mcp-session-id': String(opened.headers['Mcp-Session-Id']),
    'mcp-protocol-version': '2025-11-25',
  },
  'tools/call',
  { name: BENCH_TOOL, arguments: {} },
);

let next = 1;
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
// The warm-up's spans go out before the clock starts: the exporter's first use (its modules, its
// HTTP agent) is paid once per process, not by the calls measured, however few they are.
const provider = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate();
await (provider as { forceFlush?: () => Promise<void> }).forceFlush?.();
const cpu = process.cpuUsage();
const calls = await load(durationMs);
// The spans still buffered are exported on the clock too: their cost is the calls'.
await tracing?.shutdown();
const spent = process.cpuUsage(cpu);
process.stdout.write(`${JSON.stringify({ calls, cpuUs: spent.user + spent.system, dropped })}\n`);
endpoint.close();
stop();
