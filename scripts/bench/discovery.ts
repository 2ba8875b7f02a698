/**
 * What discovery mode costs and saves, in process: building the action index
 * over 1,000 actions (every compiled action, the curated remote servers'
 * tools, and a second Coolify connection's actions to make up the rest),
 * `search_actions` latency over the labelled requests (p50 and p99, wall
 * and CPU time), and
 * `tools/list` for an agent granted every compiled action in direct mode
 * against the three discovery tools: bytes of the JSON-RPC reply and tokens
 * by `gpt-tokenizer` (o200k_base); and what a `call_action` costs in CPU
 * against the direct call (`discovery-call-cost.ts`). Run: `npm run bench:discovery`.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { countTokens } from 'gpt-tokenizer';
import { providers } from '../../generated/index.ts';
import { ActionIndex, searchActions } from '../../runtime/core/discovery/action-index.ts';
import { DISCOVERY_TOOLS, searchReply } from '../../runtime/core/discovery/discovery-tools.ts';
import { scopeFor } from '../../runtime/core/identity/principals/scopes.ts';
import { REQUESTS } from '../../test/runtime/core/discovery/requests.ts';
import {
  compiledActions,
  compiledCatalog,
  curatedRemoteActions,
} from '../../test/support/discovery.ts';
import { measureCallCost } from './discovery-call-cost.ts';

const ACTIONS = 1_000;
const BUILDS = 15;
const SEARCH_ROUNDS = 20;

const native = providers.flatMap(({ id }) => compiledActions(id));
const everyAction = [...native, ...curatedRemoteActions()];
const actions = [
  ...everyAction,
  ...compiledActions('coolify', 'coolify-staging').slice(0, ACTIONS - everyAction.length),
];

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

// Index build: median of fresh builds (the first one warms up).
new ActionIndex(actions);
const builds: number[] = [];
for (let i = 0; i < BUILDS; i++) {
  const started = performance.now();
  new ActionIndex(actions);
  builds.push(performance.now() - started);
}
builds.sort((a, b) => a - b);

// Search: every labelled request, warmed up, then timed one by one.
const index = new ActionIndex(actions);
for (let round = 0; round < 3; round++)
  for (const [query] of REQUESTS) searchActions(index, { query });
// Wall time, and CPU time (what a loaded machine's waits leave out).
const searches: number[] = [];
const searchesCpu: number[] = [];
for (let round = 0; round < SEARCH_ROUNDS; round++) {
  for (const [query] of REQUESTS) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    searchActions(index, { query });
    searches.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    searchesCpu.push((used.user + used.system) / 1000);
  }
}
searches.sort((a, b) => a - b);
searchesCpu.sort((a, b) => a - b);

/**
 * A compiled action as `tools/list` shows it (the fields
 * runtime/core/pipeline/governed-tools.ts gives each tool).
 */
const directTools: Tool[] = providers.flatMap(({ id }) =>
  compiledCatalog(id).actions.map(
    (action) =>
      ({
        name: action.name,
        title: action.title,
        description: action.description,
        inputSchema: action.inputSchema as Tool['inputSchema'],
        annotations: { ...action.annotations },
        securitySchemes: [{ type: 'oauth2', scopes: [scopeFor(action.classification)] }],
      }) as Tool,
  ),
);
const listReply = (tools: readonly Tool[]) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools } });
const direct = listReply(directTools);
const discovery = listReply(DISCOVERY_TOOLS);
const sizeOf = (text: string) => ({ bytes: Buffer.byteLength(text), tokens: countTokens(text) });
const directSize = sizeOf(direct);
const discoverySize = sizeOf(discovery);

// One search reply, for scale: what an agent reads instead of the list.
const allCompiled = new ActionIndex(native);
const request = { query: 'stop an instance' };
const reply = sizeOf(
  JSON.stringify({
    jsonrpc: '2.0',
    id: 2,
    result: searchReply(request, searchActions(allCompiled, request)),
  }),
);

const ms = (value: number) => `${value.toFixed(3)} ms`;
console.log(`node ${process.version}; ${index.size} actions, ${REQUESTS.length} requests`);
console.log(`index build (median of ${BUILDS})`.padEnd(44), ms(percentile(builds, 0.5)));
console.log(
  `search_actions p50 (${searches.length} searches)`.padEnd(44),
  ms(percentile(searches, 0.5)),
);
console.log('search_actions p99'.padEnd(44), ms(percentile(searches, 0.99)));
console.log(
  'search_actions CPU p50 / p99'.padEnd(44),
  `${ms(percentile(searchesCpu, 0.5))} / ${ms(percentile(searchesCpu, 0.99))}`,
);
console.log(
  `tools/list, direct (${directTools.length} tools)`.padEnd(44),
  `${directSize.bytes} bytes, ${directSize.tokens} tokens`,
);
console.log(
  `tools/list, discovery (${DISCOVERY_TOOLS.length} tools)`.padEnd(44),
  `${discoverySize.bytes} bytes, ${discoverySize.tokens} tokens`,
);
console.log(
  'direct / discovery'.padEnd(44),
  `${(directSize.bytes / discoverySize.bytes).toFixed(0)}× bytes, ${(directSize.tokens / discoverySize.tokens).toFixed(0)}× tokens`,
);
console.log(
  `a search_actions reply ("${request.query}", 8 results)`.padEnd(44),
  `${reply.bytes} bytes, ${reply.tokens} tokens`,
);

// A call through call_action against the direct call of the same action: CPU time per call.
const cost = await measureCallCost();
console.log(
  `call_action vs direct call CPU (${cost.rounds} × ${cost.calls} calls)`.padEnd(44),
  `${cost.discoveryUs.toFixed(0)} µs vs ${cost.directUs.toFixed(0)} µs per call, ${cost.ratio.toFixed(3)}× (median of rounds)`,
);
