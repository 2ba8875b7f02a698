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
import type { Caller } from '../../runtime/core/identity/principals/principals.ts';
import { createAgent } from '../../runtime/core/operator/agents.ts';
import { connect } from '../../runtime/core/operator/connections.ts';
import { grant } from '../../runtime/core/operator/grants.ts';
import { setAgentTools } from '../../runtime/core/operator/tools-modes.ts';
import { alternatingCpu, benchGateway, childUpstream, requestContext } from './in-process.ts';

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

export async function measureCallCost(): Promise<CallCost> {
  const upstream = await childUpstream(UPSTREAM);
  const bench = await benchGateway('discovery', {
    PORTCULLIS_DEV_UPSTREAMS: `unikraft=http://127.0.0.1:${upstream.port}`,
  });
  const { gateway } = bench;
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
    const callDirect = () =>
      gateway.tools.callTool(directCaller, {
        ...requestContext('legacy', {}),
        name: ACTION,
        arguments: {},
      });
    const callThroughDiscovery = () =>
      gateway.tools.callTool(discoveryCaller, {
        ...requestContext('legacy', {}),
        name: 'call_action',
        arguments: { action: ACTION, arguments: {} },
      });
    const check = async (call: () => Promise<unknown>) => {
      const outcome = (await call()) as { isError?: boolean };
      if (outcome.isError) throw new Error(`the call failed: ${JSON.stringify(outcome)}`);
    };
    await check(callDirect);
    await check(callThroughDiscovery);
    const cost = await alternatingCpu(callDirect, callThroughDiscovery, {
      calls: CALLS,
      rounds: ROUNDS,
      warmup: WARMUP,
    });
    return {
      directUs: cost.firstUs,
      discoveryUs: cost.secondUs,
      ratio: cost.ratio,
      calls: CALLS,
      rounds: ROUNDS,
    };
  } finally {
    await bench.close();
    upstream.stop();
  }
}
