/**
 * The scaffolding of the benchmarks that measure the real gateway in
 * process against an upstream in a child process (its work not counted):
 * the upstream started, the gateway opened on a fresh data folder, a
 * remote server connected for one agent, a request's context as the
 * endpoint gives it to the tool backend, and two requests' CPU time
 * measured in rounds that alternate which goes first.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Gateway, openGateway } from '../../runtime/compose/open-gateway.ts';
import { configFromEnvironment } from '../../runtime/config/config.ts';
import { Cancellation } from '../../runtime/core/base/cancellation.ts';
import type { Caller } from '../../runtime/core/identity/principals/principals.ts';
import type { ToolCall } from '../../runtime/core/mcp/server/tool-backend.ts';
import type { McpEra } from '../../runtime/core/mcp/wire/protocol-version.ts';
import { changeActions } from '../../runtime/core/operator/actions.ts';
import { createAgent } from '../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../runtime/core/operator/context.ts';
import { grant } from '../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../runtime/core/operator/remote-connections.ts';

export interface ChildUpstream {
  port: string;
  stop(): void;
}

/** An upstream run from `source` in its own Node process, which prints its port once listening. */
export async function childUpstream(source: string): Promise<ChildUpstream> {
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('error', reject);
  });
  return { port, stop: () => child.kill() };
}

export interface BenchGateway {
  gateway: Gateway;
  /** Closes the gateway and removes its data folder. */
  close(): Promise<void>;
}

/** The gateway opened in this process on a fresh data folder, logging errors only, with `environment`. */
export async function benchGateway(
  name: string,
  environment: Record<string, string>,
): Promise<BenchGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), `portcullis-bench-${name}-`));
  const gateway = await openGateway({
    config: configFromEnvironment({
      PORT: '0',
      PORTCULLIS_DATA_DIR: dataDir,
      PORTCULLIS_LOG_LEVEL: 'error',
      ...environment,
    }),
    catalogs: new URL('../../generated/', import.meta.url),
  });
  return {
    gateway,
    async close() {
      await gateway.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The 2026-07-28 server on `port` connected as `bench` in the default
 * workspace, everything reviewed (then `then`, an operator verb more), and
 * `agent` granted all of it: the agent's caller.
 */
export async function remoteCaller(
  gateway: Gateway,
  port: string,
  agent: string,
  then?: (ctx: OperatorContext) => Promise<unknown>,
): Promise<Caller> {
  const ctx = gateway.operator('bench');
  const workspace = 'default';
  const connection = 'bench';
  await connectUrl(ctx, { workspace, url: `http://127.0.0.1:${port}/mcp`, name: connection });
  await changeActions(ctx, 'review', { workspace, connection, all: true });
  await then?.(ctx);
  const { key } = await createAgent(ctx, { workspace, name: agent });
  await grant(ctx, { workspace, agent, connection, scope: 'all' });
  return (await gateway.tools.authenticate(`Bearer ${key}`)) as Caller;
}

/** What the endpoint gives the tool backend with a request, but its name and arguments. */
export function requestContext(
  era: McpEra,
  clientCapabilities: Record<string, unknown>,
  cancel: Cancellation = new Cancellation(),
): Omit<ToolCall, 'name' | 'arguments'> {
  return {
    era,
    protocolVersion: era === 'modern' ? '2026-07-28' : '2025-11-25',
    clientCapabilities,
    cancel,
    progress: () => {},
    log: () => {},
    trace: undefined,
    input: undefined,
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export interface Rounds {
  calls: number;
  rounds: number;
  /** Requests of each made first and not counted. */
  warmup: number;
}

export interface AlternatingCpu {
  /** CPU microseconds per request of each, median over rounds. */
  firstUs: number;
  secondUs: number;
  /** Median of the rounds' second / first ratios. */
  ratio: number;
  /** The lowest and highest of the rounds' ratios. */
  spread: [number, number];
}

/**
 * CPU time of this process per request of `first` and of `second`, `calls`
 * one after another a round, the two in turn, which goes first alternating
 * round by round (so a noisy moment slows both), after `warmup` of each.
 */
export async function alternatingCpu(
  first: () => Promise<unknown>,
  second: () => Promise<unknown>,
  { calls, rounds, warmup }: Rounds,
): Promise<AlternatingCpu> {
  for (let i = 0; i < warmup; i++) {
    await first();
    await second();
  }
  const cpuOf = async (request: () => Promise<unknown>) => {
    const before = process.cpuUsage();
    for (let i = 0; i < calls; i++) await request();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / calls;
  };
  const firsts: number[] = [];
  const seconds: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    let f: number;
    let s: number;
    if (round % 2 === 0) {
      f = await cpuOf(first);
      s = await cpuOf(second);
    } else {
      s = await cpuOf(second);
      f = await cpuOf(first);
    }
    firsts.push(f);
    seconds.push(s);
    ratios.push(s / f);
  }
  return {
    firstUs: median(firsts),
    secondUs: median(seconds),
    ratio: median(ratios),
    spread: [Math.min(...ratios), Math.max(...ratios)],
  };
}
