/**
 * Runs the MCP conformance suite's server scenarios against an endpoint that
 * requires a credential (through a header-adding loopback proxy) and sums up
 * each scenario's checks.
 *
 * The suite runs a revision's whole scenario set in one process (a second or
 * two; one process per scenario would cost a second each). The verdict is on
 * the scenarios that apply to any MCP server with tools; the rest call the
 * reference fixture server's tools, resources and prompts
 * (`test_simple_text`, `test://static-text`, ...) or capabilities a tools-only
 * gateway does not declare (logging, completions), so they say nothing about
 * this endpoint and are reported only on request.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type ConformanceTarget, startAuthProxy } from './auth-proxy.ts';

export type { ConformanceTarget } from './auth-proxy.ts';

/** Scenarios any MCP server with tools over Streamable HTTP must pass. */
export const APPLICABLE_SCENARIOS = [
  'server-initialize',
  'server-session-lifecycle',
  'ping',
  'tools-list',
  'dns-rebinding-protection',
  'server-sse-multiple-streams',
] as const;

export const REQUIREMENTS_REVISION = '2025-11-25';

export interface ScenarioSummary {
  scenario: string;
  /** In `APPLICABLE_SCENARIOS`. */
  applicable: boolean;
  passed: number;
  failed: number;
  warnings: number;
  /** INFO and SKIPPED checks. */
  other: number;
  /** The suite did not run it: not part of the requested spec version. */
  notAtThisVersion: boolean;
  /** Failed and warning checks: id and the suite's message. */
  problems: { id: string; status: string; message: string }[];
}

export interface Summary {
  specVersion: string;
  outputDir: string;
  scenarios: ScenarioSummary[];
  /** Every applicable scenario that ran has passing checks and no failure or warning. */
  ok: boolean;
}

export interface RunConformanceOptions {
  /**
   * Default 2025-11-25, run as that revision's requirement set
   * (`--requirements`); another version runs the suite's active scenarios at
   * that version (`--spec-version`). Either way in one suite process.
   */
  specVersion?: string;
  /** Also report the scenarios that do not apply (fixture tools, resources, prompts). */
  all?: boolean;
  /** Where the suite writes its results. Default: a new temporary folder. */
  outputDir?: string;
  /** Per-scenario timeout. Default 30 s. */
  timeoutMs?: number;
}

interface Check {
  id?: unknown;
  status?: unknown;
  errorMessage?: unknown;
}

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SUITE_BIN = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
/** The suite imports `fs.globSync`, which Node 20 lacks; this preload supplies it. */
const NODE20_PRELOAD =
  process.env.PORTCULLIS_CONFORMANCE_PRELOAD ??
  join(REPO_ROOT, '../shared/tools/conformance-node20/register.mjs');

export async function runConformance(
  target: ConformanceTarget,
  options: RunConformanceOptions = {},
): Promise<Summary> {
  const specVersion = options.specVersion ?? REQUIREMENTS_REVISION;
  const outputDir = options.outputDir ?? (await mkdtemp(join(tmpdir(), 'portcullis-conformance-')));
  const selection =
    specVersion === REQUIREMENTS_REVISION
      ? ['--requirements', REQUIREMENTS_REVISION]
      : ['--spec-version', specVersion];
  const proxy = await startAuthProxy(target);
  let output: string;
  try {
    output = await runSuite([
      'server',
      ...['--url', proxy.url, '-o', outputDir, '--timeout', String(options.timeoutMs ?? 30_000)],
      ...selection,
    ]);
  } finally {
    await proxy.close();
  }
  const ran = new Set(
    [...output.matchAll(/^=== Running scenario: (\S+) ===$/gm)].map((m) => m[1]!),
  );
  const results = await readResults(outputDir);
  const others = options.all ? [...ran].filter((name) => !isApplicable(name)).sort() : [];
  const summaries = [...APPLICABLE_SCENARIOS, ...others].map((scenario) =>
    summarize(scenario, results.get(scenario), !ran.has(scenario)),
  );
  const ok = summaries.every((s) => !s.applicable || s.notAtThisVersion || passes(s));
  return { specVersion, outputDir, scenarios: summaries, ok };
}

function isApplicable(scenario: string): boolean {
  return (APPLICABLE_SCENARIOS as readonly string[]).includes(scenario);
}

/** One line per scenario: counts, then the problems of the applicable ones. */
export function formatSummary(summary: Summary): string {
  const lines = [`MCP conformance, spec ${summary.specVersion} (results in ${summary.outputDir})`];
  const width = Math.max(...summary.scenarios.map((s) => s.scenario.length));
  for (const s of summary.scenarios) {
    const verdict = !s.applicable
      ? 'n/a '
      : s.notAtThisVersion
        ? 'skip'
        : passes(s)
          ? 'PASS'
          : 'FAIL';
    lines.push(
      s.notAtThisVersion
        ? `${verdict}  ${s.scenario.padEnd(width)}  not part of spec ${summary.specVersion}`
        : `${verdict}  ${s.scenario.padEnd(width)}  passed ${s.passed}, failed ${s.failed}, warnings ${s.warnings}, info/skipped ${s.other}`,
    );
    if (s.applicable) {
      for (const p of s.problems) lines.push(`        ${p.status} ${p.id}: ${p.message}`);
    }
  }
  lines.push(summary.ok ? 'all applicable scenarios pass' : 'some applicable scenarios FAIL');
  return lines.join('\n');
}

function passes(s: ScenarioSummary): boolean {
  return s.passed > 0 && s.failed === 0 && s.warnings === 0;
}

function summarize(
  scenario: string,
  checks: Check[] | undefined,
  notAtThisVersion: boolean,
): ScenarioSummary {
  const summary: ScenarioSummary = {
    scenario,
    applicable: isApplicable(scenario),
    passed: 0,
    failed: 0,
    warnings: 0,
    other: 0,
    notAtThisVersion,
    problems: [],
  };
  if (notAtThisVersion) return summary;
  if (checks === undefined) {
    summary.failed = 1;
    summary.problems.push({
      id: scenario,
      status: 'FAILURE',
      message: 'the suite wrote no result',
    });
    return summary;
  }
  for (const check of checks) {
    if (check.status === 'SUCCESS') summary.passed++;
    else if (check.status === 'FAILURE') summary.failed++;
    else if (check.status === 'WARNING') summary.warnings++;
    else summary.other++;
    if (check.status === 'FAILURE' || check.status === 'WARNING') {
      summary.problems.push({
        id: String(check.id),
        status: String(check.status),
        message: String(check.errorMessage ?? ''),
      });
    }
  }
  return summary;
}

/** The suite writes `server-<scenario>-<timestamp>/checks.json` per scenario. */
async function readResults(outputDir: string): Promise<Map<string, Check[]>> {
  const results = new Map<string, Check[]>();
  for (const entry of await readdir(outputDir, { withFileTypes: true })) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry.name);
    if (!entry.isDirectory() || !match) continue;
    const file = join(outputDir, entry.name, 'checks.json');
    if (!existsSync(file)) continue;
    results.set(match[1]!, JSON.parse(await readFile(file, 'utf8')) as Check[]);
  }
  return results;
}

function preloadArguments(): string[] {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 22) return [];
  if (!existsSync(NODE20_PRELOAD)) {
    throw new Error(
      `the conformance suite needs Node 22, or on Node 20 the preload at ${NODE20_PRELOAD} (set PORTCULLIS_CONFORMANCE_PRELOAD)`,
    );
  }
  return ['--import', pathToFileURL(NODE20_PRELOAD).href];
}

/** Runs the suite's CLI and returns its output; its exit code is not the verdict (the checks are). */
function runSuite(args: string[]): Promise<string> {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, [...preloadArguments(), SUITE_BIN, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let errors = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString('utf8')).slice(-20_000);
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === null) reject(new Error(`the conformance suite was killed\n${errors}`));
      else resolve(output);
    });
  });
}
