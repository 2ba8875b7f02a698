/**
 * `npm run bench:start`: the start figure of `bench:gateway` alone, without
 * its load cells, for comparing starts on a quiet moment of a shared
 * machine. `node dist/server.mjs` from spawn until `/readyz` answers 200, a
 * first and a later start per round; with `BENCH_GATEWAY_BASE_DIST` another
 * build's server too, alternating round by round.
 *
 *   npm run bench:start [-- --rounds 9]
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { formatStartup, measureStartup, startupServers } from './gateway/startup.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '9' } } });
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new TypeError('--rounds takes a whole number');

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const loadBefore = load();
const servers = startupServers();
const samples = await measureStartup(
  rounds,
  servers.map((s) => s.server),
);
for (const [index, { name }] of servers.entries()) {
  console.log(formatStartup(samples[index]!, name));
  console.log('');
}
console.log(`- load average (1, 5, 15 min) at start: ${loadBefore}; at end: ${load()}`);
