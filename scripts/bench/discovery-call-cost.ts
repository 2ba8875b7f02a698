/**
 * What a `call_action` costs against the direct call of the same action, in
 * CPU time of the gateway's process: the real gateway in process (SQLite,
 * governance, audit, the outbound client) calling a Unikraft read through
 * its tool backend, `GovernedTools.callTool`, once by the tool's name for an
 * agent in direct mode and once as `call_action` for an agent in discovery
 * mode. The upstream answers from a child process, so its work is not
 * counted. Rounds alternate which goes first; the figure is the median of
 * the rounds' ratios. Part of `npm run bench:discovery`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openGateway } from '../../runtime/compose/open-gateway.ts';
import { configFromEnvironment } from '../../runtime/config/config.ts';
import { Cancellation } from '../../runtime/core/base/cancellation.ts';
import type { Caller } from '../../runtime/core/identity/principals/principals.ts';
import type { ToolCall } from '../../runtime/core/mcp/server/tool-backend.ts';
import { createAgent } from '../../runtime/core/operator/agents.ts';
import { connect } from '../../runtime/core/operator/connections.ts';
import { grant } from '../../runtime/core/operator/grants.ts';
import { setAgentTools } from '../../runtime/core/operator/tools-modes.ts';

const ACTION = 'unikraft_get_user';
const CALLS = 400;
const ROUNDS = 9;
const WARMUP = 300;

/** A REST upstream in its own process: every request a small JSON reply. Prints its port. */
const UPSTREAM = `
const server = require('node:http').createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end('{"status":"success","data":{"volumes":[{"uuid":"v1","name":"data"}]}}');
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

export interface CallCost {
  /** CPU microseconds per call, median over rounds. */
  directUs: number;
  discoveryUs: number;
  /** Median of the rounds' discovery / direct ratios. */
  ratio: number;
  calls: number;
  rounds: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function measureCallCost(): Promise<CallCost> {
  const upstream = spawn(process.execPath, ['-e', UPSTREAM], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    upstream.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    upstream.once('error', reject);
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-bench-discovery-'));
  const gateway = await openGateway({
    config: configFromEnvironment({
      PORT: '0',
      PORTCULLIS_DATA_DIR: dataDir,
      PORTCULLIS_LOG_LEVEL: 'error',
      PORTCULLIS_DEV_UPSTREAMS: `unikraft=http://127.0.0.1:${port}`,
    }),
    catalogs: new URL('../../generated/', import.meta.url),
  });
  try {
    const ctx = gateway.operator('bench');
    const workspace = 'default';
    await connect(ctx, { workspace, provider: 'unikraft', credential: 'bench-token' });
    const callers: Caller[] = [];
    for (const [name, tools] of [
      ['direct', 'direct'],
      ['discovering', 'discovery'],
    ] as const) {
      const { key } = await createAgent(ctx, { workspace, name });
      await grant(ctx, { workspace, agent: name, connection: 'unikraft', scope: 'reads' });
      await setAgentTools(ctx, { workspace, agent: name, tools });
      const caller = await gateway.tools.authenticate(`Bearer ${key}`);
      if (!caller) throw new Error(`agent ${name} is not authenticated`);
      callers.push(caller);
    }
    const [directCaller, discoveryCaller] = callers as [Caller, Caller];
    const context = (): Omit<ToolCall, 'name' | 'arguments'> => ({
      era: 'legacy',
      protocolVersion: '2025-11-25',
      clientCapabilities: {},
      cancel: new Cancellation(),
      progress: () => {},
      log: () => {},
      trace: undefined,
      input: undefined,
    });
    const callDirect = () =>
      gateway.tools.callTool(directCaller, { ...context(), name: ACTION, arguments: {} });
    const callThroughDiscovery = () =>
      gateway.tools.callTool(discoveryCaller, {
        ...context(),
        name: 'call_action',
        arguments: { action: ACTION, arguments: {} },
      });
    const check = async (call: () => Promise<unknown>) => {
      const outcome = (await call()) as { isError?: boolean };
      if (outcome.isError) throw new Error(`the call failed: ${JSON.stringify(outcome)}`);
    };
    await check(callDirect);
    await check(callThroughDiscovery);
    for (let i = 0; i < WARMUP; i++) {
      await callDirect();
      await callThroughDiscovery();
    }
    /** CPU microseconds per call of `calls` calls, one after another. */
    const cpuOf = async (call: () => Promise<unknown>) => {
      const before = process.cpuUsage();
      for (let i = 0; i < CALLS; i++) await call();
      const used = process.cpuUsage(before);
      return (used.user + used.system) / CALLS;
    };
    const direct: number[] = [];
    const discovery: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let d: number;
      let v: number;
      if (round % 2 === 0) {
        d = await cpuOf(callDirect);
        v = await cpuOf(callThroughDiscovery);
      } else {
        v = await cpuOf(callThroughDiscovery);
        d = await cpuOf(callDirect);
      }
      direct.push(d);
      discovery.push(v);
      ratios.push(v / d);
    }
    return {
      directUs: median(direct),
      discoveryUs: median(discovery),
      ratio: median(ratios),
      calls: CALLS,
      rounds: ROUNDS,
    };
  } finally {
    await gateway.close();
    upstream.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
