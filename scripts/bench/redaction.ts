/**
 * What redacting every credential of a workspace costs a reply: a typical
 * tool result (about 6 KB of JSON, no secret in it, the usual case) and one
 * that holds a secret, through a call's redactor with 1 secret and with 50
 * (its workspace's, beside its own), and, for scale, the one-search-per-
 * needle way (`Buffer.indexOf` of each). Median of 15 rounds; ratios against
 * the 1-secret redactor. Run: `npm run bench:redaction`.
 */
import { randomBytes } from 'node:crypto';
import { Redactor } from '../../runtime/core/outbound/redaction.ts';

const ROUNDS = 15;
const CALLS = 4_000;

const secret = () => `sk_${randomBytes(18).toString('base64url')}`;
const own = secret();
const workspace = Array.from({ length: 49 }, secret);

const items = Array.from({ length: 60 }, (_, i) => ({
  id: i,
  name: `item-${i}`,
  sky: 'sunny',
  note: randomBytes(24).toString('base64'),
}));
const reply = (text: string) =>
  Buffer.from(
    JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } }),
  );
const clean = reply(JSON.stringify(items));
const holding = reply(`${JSON.stringify(items)} ${workspace[20]}`);

const one = new Redactor([own]);
const fifty = new Redactor([own], new Redactor([own, ...workspace]));
const needles = [own, ...workspace].map((value) => Buffer.from(value));
const perNeedle = (body: Buffer) => {
  for (const needle of needles) body.indexOf(needle);
};

function median(run: () => void): number {
  for (let i = 0; i < CALLS; i++) run();
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) run();
    rounds.push(Number(process.hrtime.bigint() - started) / CALLS / 1000);
  }
  return rounds.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
}

const rows: Array<[string, number, number]> = [];
for (const [label, body] of [
  ['no secret', clean],
  ['a secret', holding],
] as const) {
  const base = median(() => one.bytes(body));
  rows.push([`${label}, 1 secret`, base, 1]);
  const all = median(() => fifty.bytes(body));
  rows.push([`${label}, 50 secrets (workspace)`, all, all / base]);
  const scans = median(() => perNeedle(body));
  rows.push([`${label}, 50 indexOf scans (for scale)`, scans, scans / base]);
}
console.log(`reply ${clean.length} bytes; node ${process.version}`);
console.log('case'.padEnd(44), 'µs/reply'.padStart(9), 'ratio'.padStart(7));
for (const [name, micros, ratio] of rows)
  console.log(name.padEnd(44), micros.toFixed(2).padStart(9), `${ratio.toFixed(2)}×`.padStart(7));
