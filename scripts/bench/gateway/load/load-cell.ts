/**
 * One cell of the benchmark: one configuration at one concurrency for a fixed
 * time. Each concurrency slot loops one call after another (MCP: `tools/call`
 * in its own session, over Streamable HTTP or HTTP+SSE; http: a GET) over
 * keep-alive connections; calls that start during the warm-up are not
 * counted. A call is OK when it is a JSON-RPC result without `isError` (http:
 * a 2xx status).
 */
import { Pool } from 'undici';
import type { StartedTarget } from '../targets/target.ts';
import { type McpCallerSession, mcpCaller } from './mcp-caller.ts';
import { describe } from './mcp-client.ts';

export interface CellOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** The server's CPU time so far in ms, read when counting starts and ends. */
  cpuClock?: () => number | undefined;
}

export interface CellResult {
  ok: number;
  errors: number;
  /** From the end of the warm-up until the last counted call returned. */
  elapsedMs: number;
  requestsPerSecond: number;
  p50Ms: number | undefined;
  p95Ms: number | undefined;
  p99Ms: number | undefined;
  /** Server CPU time per counted call, in ms; undefined without a cpuClock. */
  cpuMsPerCall: number | undefined;
  /** The first failure's reason, for the report. */
  firstError: string | undefined;
}

/** One call: undefined when OK, else why not. */
type Call = () => Promise<string | undefined>;

export async function runCell(target: StartedTarget, options: CellOptions): Promise<CellResult> {
  return target.mode === 'http' ? runHttpCell(target, options) : runMcpCell(target, options);
}

async function runHttpCell(target: StartedTarget, options: CellOptions): Promise<CellResult> {
  const url = new URL(target.url);
  const pool = new Pool(url.origin, {
    connections: options.concurrency,
    pipelining: 1,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const path = `${url.pathname}${url.search}`;
  const call: Call = async () => {
    const answer = await pool.request({ method: 'GET', path, headers: target.headers });
    const text = await answer.body.text();
    return answer.statusCode < 300 ? undefined : `HTTP ${answer.statusCode}: ${text.slice(0, 200)}`;
  };
  try {
    return await drive(
      Array.from({ length: options.concurrency }, () => call),
      options,
    );
  } finally {
    await pool.destroy();
  }
}

async function runMcpCell(target: StartedTarget, options: CellOptions): Promise<CellResult> {
  const client = mcpCaller(target, options.concurrency);
  const sessionCount = target.sessions === 'shared' ? 1 : options.concurrency;
  const sessions: McpCallerSession[] = [];
  try {
    const opened = await Promise.allSettled(
      Array.from({ length: sessionCount }, () => client.open()),
    );
    for (const outcome of opened) if (outcome.status === 'fulfilled') sessions.push(outcome.value);
    const refused = opened.find((outcome) => outcome.status === 'rejected');
    if (refused) throw new Error(`opening sessions: ${(refused.reason as Error).message}`);
    const params = { name: target.toolName, arguments: target.arguments };
    const calls = Array.from({ length: options.concurrency }, (_, slot): Call => {
      const session = sessions[slot % sessions.length]!;
      return async () => {
        const message = await client.request(session, 'tools/call', params);
        if (!message.result) return describe(message);
        return message.result.isError === true ? `isError: ${describe(message)}` : undefined;
      };
    });
    return await drive(calls, options);
  } finally {
    await Promise.all(sessions.map((session) => client.close(session)));
    await client.destroy();
  }
}

async function drive(calls: Call[], options: CellOptions): Promise<CellResult> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const warmEnd = performance.now() + options.warmupMs;
  const end = warmEnd + options.durationMs;
  let lastCounted = warmEnd;
  let cpuStart: number | undefined;
  const cpuTimer = setTimeout(() => {
    cpuStart = options.cpuClock?.();
  }, options.warmupMs);
  const loop = async (call: Call) => {
    for (let started = performance.now(); started < end; started = performance.now()) {
      let failure: string | undefined;
      try {
        failure = await call();
      } catch (error) {
        failure = (error as Error).message;
        // A server that refuses at once must not turn the loop into a busy spin.
        await new Promise((resolve) => setImmediate(resolve));
      }
      const finished = performance.now();
      if (started < warmEnd) continue;
      lastCounted = Math.max(lastCounted, finished);
      if (failure === undefined) latencies.push(finished - started);
      else {
        errors++;
        firstError ??= failure;
      }
    }
  };
  await Promise.all(calls.map(loop));
  clearTimeout(cpuTimer);
  const cpuEnd = options.cpuClock?.();
  latencies.sort((a, b) => a - b);
  const counted = latencies.length + errors;
  const elapsedMs = lastCounted - warmEnd;
  return {
    ok: latencies.length,
    errors,
    elapsedMs,
    requestsPerSecond: elapsedMs > 0 ? (latencies.length / elapsedMs) * 1000 : 0,
    p50Ms: percentile(latencies, 0.5),
    p95Ms: percentile(latencies, 0.95),
    p99Ms: percentile(latencies, 0.99),
    cpuMsPerCall:
      cpuStart !== undefined && cpuEnd !== undefined && counted > 0
        ? (cpuEnd - cpuStart) / counted
        : undefined,
    firstError,
  };
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], fraction: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}
