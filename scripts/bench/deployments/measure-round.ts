/**
 * One deployment for one counted window: the load generator's cell
 * (../gateway/load/load-cell.ts: `concurrency` MCP sessions, each looping a
 * governed `tools/call`, a warm-up not counted), with the CPU of every
 * process serving it read at the start and the end of the counted window.
 */
import { runCell } from '../gateway/load/load-cell.ts';
import type { Wire } from '../gateway/load/mcp-client.ts';
import { settle } from '../gateway/server-child.ts';
import { type CpuProbes, type CpuReading, processesMs } from './cpu-probes.ts';
import { BENCH_TOOL, type Deployment } from './deployment.ts';

export interface RoundOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  wire: Wire;
}

export interface RoundResult {
  ok: number;
  errors: number;
  firstError: string | undefined;
  callsPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  /** CPU per counted call, in µs, of each part serving it. */
  cpu: CpuPerCall;
}

export interface CpuPerCall {
  gateway: number;
  nginx: number;
  /** The deployment's own PostgreSQL backends. */
  postgres: number;
  /** The whole Redis server's. */
  redis: number;
}

export async function measureRound(
  deployment: Deployment,
  probes: CpuProbes,
  options: RoundOptions,
): Promise<RoundResult> {
  let backends: number[] = [];
  // The pool has opened its connections by the middle of the warm-up.
  const finding = new Promise<void>((resolve) =>
    setTimeout(async () => {
      backends = await probes.backends(deployment.applicationName).catch(() => []);
      resolve();
    }, options.warmupMs / 2),
  );
  const readings: Array<Omit<CpuReading, 'redisMs'>> = [];
  let redisStart: Promise<number> | undefined;
  const cpuClock = () => {
    const gatewayMs = processesMs(deployment.gatewayPids);
    readings.push({
      gatewayMs,
      nginxMs: deployment.nginxPid === undefined ? 0 : processesMs([deployment.nginxPid]),
      postgresMs: processesMs(backends),
    });
    redisStart ??= probes.redisMs();
    return gatewayMs;
  };
  const cell = await runCell(
    {
      url: deployment.endpoint,
      headers: { authorization: `Bearer ${deployment.agentKey}` },
      toolName: BENCH_TOOL,
      arguments: { city: 'Oslo' },
      mode: 'mcp',
      wire: options.wire,
      // The deployment outlives the cell.
      close: async () => {},
    },
    { ...options, cpuClock },
  );
  const redisEnd = await probes.redisMs();
  await finding;
  const counted = cell.ok + cell.errors;
  const [start, end] = readings as [Omit<CpuReading, 'redisMs'>, Omit<CpuReading, 'redisMs'>];
  const perCall = (ms: number) => (counted > 0 ? (ms * 1000) / counted : Number.NaN);
  // What the servers do after the window (sessions closing) is not the next deployment's.
  for (const pid of deployment.gatewayPids) await settle(pid);
  return {
    ok: cell.ok,
    errors: cell.errors,
    firstError: cell.firstError,
    callsPerSecond: cell.requestsPerSecond,
    p50Ms: cell.p50Ms ?? Number.NaN,
    p95Ms: cell.p95Ms ?? Number.NaN,
    cpu: {
      gateway: perCall(end.gatewayMs - start.gatewayMs),
      nginx: perCall(end.nginxMs - start.nginxMs),
      postgres: perCall(end.postgresMs - start.postgresMs),
      redis: perCall(redisEnd - (await redisStart!)),
    },
  };
}
