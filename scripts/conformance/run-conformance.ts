/**
 * Runs the MCP conformance suite's server scenarios, each revision's
 * requirement set as the suite defines it (`--requirements 2025-11-25`,
 * `--requirements 2026-07-28`), against two endpoints through a
 * header-adding loopback proxy (the suite sends no credential):
 *
 * - `gateway`: Portcullis itself, governance on;
 * - `backend`: the same endpoint over a test tool backend with the suite's
 *   fixtures (`test/support/mcp/everything-backend.ts`: the reference
 *   tools, resources and prompts, and the 2026-07-28 tools that ask for
 *   input, stream, log or announce changes), run directly;
 * - `through`: that backend as the upstream of a remote MCP connection,
 *   reached through Portcullis on `/mcp/c/<fixture>` (governance on).
 *
 * Each scenario is judged on one of them: what the gateway's own endpoint
 * does on `gateway`, what the endpoint does with such tools on `backend`, and
 * the suite's reference fixtures through Portcullis on `through` (without a
 * `through` target they are run and reported, not judged). Where both ran,
 * `through` must count the same checks passed and failed as `backend`, and
 * no check that passes on `backend` may fail on `through`, judged or not.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import yaml from 'js-yaml';
import { type ConformanceTarget, startAuthProxy } from './auth-proxy.ts';

export type { ConformanceTarget } from './auth-proxy.ts';

export const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
export type Revision = (typeof REVISIONS)[number];
export type TargetName = 'gateway' | 'backend' | 'through';

/** The tasks extension's server scenarios (SEP-2663), run at 2026-07-28 unless forced to another revision. */
export const TASK_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-status-notifications',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
] as const;

/** Scenarios judged on the test tool backend, and the fixtures of the suite's they need. */
const BACKEND_SCENARIOS: ReadonlySet<string> = new Set([
  'server-stateless',
  'caching',
  'http-header-validation',
  'http-custom-header-server-validation',
  'input-required-result-basic-elicitation',
  'input-required-result-basic-sampling',
  'input-required-result-basic-list-roots',
  'input-required-result-request-state',
  'input-required-result-multiple-input-requests',
  'input-required-result-multi-round',
  'input-required-result-missing-input-response',
  'input-required-result-non-tool-request',
  'input-required-result-result-type',
  'input-required-result-unsupported-methods',
  'input-required-result-tampered-state',
  'input-required-result-capability-check',
  'input-required-result-ignore-extra-params',
  'input-required-result-validate-input',
  ...judgedTaskScenarios(),
]);

/** Scenarios that call the suite's reference fixtures, with what they call. */
export const SUITE_FIXTURES: Readonly<Record<string, string>> = {
  'completion-complete': 'completion/complete on test_prompt_with_arguments',
  'tools-call-simple-text': 'the tool test_simple_text',
  'tools-call-image': 'the tool test_image_content',
  'tools-call-audio': 'the tool test_audio_content',
  'tools-call-embedded-resource': 'the tool test_embedded_resource',
  'tools-call-mixed-content': 'the tool test_multiple_content_types',
  'tools-call-with-logging': 'the tool test_tool_with_logging',
  'tools-call-error': 'the tool test_error_handling',
  'tools-call-with-progress': 'the tool test_tool_with_progress',
  'tools-call-sampling': 'the tool test_sampling',
  'tools-call-elicitation': 'the tool test_elicitation',
  'elicitation-sep1034-defaults': 'the tool test_elicitation_sep1034_defaults',
  'elicitation-sep1330-enums': 'the tool test_elicitation_sep1330_enums',
  'resources-read-text': 'the resource test://static-text',
  'resources-read-binary': 'the resource test://static-binary',
  'resources-templates-read': 'the template test://template/{id}/data',
  'resources-subscribe': 'a subscribable resource test://...',
  'resources-unsubscribe': 'a subscribable resource test://...',
  'prompts-get-simple': 'the prompt test_simple_prompt',
  'prompts-get-with-args': 'the prompt test_prompt_with_arguments',
  'prompts-get-embedded-resource': 'the prompt test_prompt_with_embedded_resource',
  'prompts-get-with-image': 'the prompt test_prompt_with_image',
  'json-schema-2020-12': 'the tool json_schema_2020_12_tool',
};

export interface Counts {
  passed: number;
  failed: number;
  warnings: number;
  /** INFO and SKIPPED checks. */
  other: number;
  /** Failed and warning checks: id and the suite's message. */
  problems: { id: string; status: string; message: string }[];
}

export interface ScenarioReport {
  scenario: string;
  revision: Revision;
  /** In the revision's requirement set's scored lists (not `not_scored`). */
  scored: boolean;
  /** Why it is not scored, when it is not (pending, extension, ...). */
  notScoredBecause?: string;
  /** What judges it; `suite-fixtures` and extensions are only reported. */
  judge: TargetName | 'suite-fixtures' | 'not-scored';
  /** The suite fixture it calls, when it calls one. */
  needs?: string;
  results: Partial<Record<TargetName, Counts>>;
  /** Judged and clean: at least one check passed, none failed, no warning. */
  ok: boolean | undefined;
  /** Through Portcullis the same as directly (checks passed and failed), when both ran. */
  same: boolean | undefined;
  /** A check fails through Portcullis that does not fail directly, when both ran. */
  lost: boolean | undefined;
}

export interface ConformanceReport {
  scenarios: ScenarioReport[];
  /** Every judged scenario is clean. */
  ok: boolean;
  outputDir: string;
}

export interface RunConformanceOptions {
  revisions?: readonly Revision[];
  /** Where the suite writes its results. Default: a new temporary folder. */
  outputDir?: string;
  /** Per-scenario timeout. Default 30 s. */
  timeoutMs?: number;
}

export interface Check {
  id?: unknown;
  status?: unknown;
  errorMessage?: unknown;
}

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SUITE = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/conformance');
const SUITE_BIN = join(SUITE, 'dist/index.js');
/** The suite imports `fs.globSync`, which Node 20 lacks; this preload supplies it. */
const NODE20_PRELOAD =
  process.env.PORTCULLIS_CONFORMANCE_PRELOAD ??
  join(REPO_ROOT, '../shared/tools/conformance-node20/register.mjs');

export async function runConformance(
  targets: Partial<Record<TargetName, ConformanceTarget>>,
  options: RunConformanceOptions = {},
): Promise<ConformanceReport> {
  const outputDir = options.outputDir ?? (await mkdtemp(join(tmpdir(), 'portcullis-conformance-')));
  const scenarios: ScenarioReport[] = [];
  for (const revision of options.revisions ?? REVISIONS) {
    const requirements = requirementsOf(revision);
    const results: Partial<Record<TargetName, Map<string, Counts>>> = {};
    for (const [name, target] of Object.entries(targets) as [TargetName, ConformanceTarget][]) {
      const folder = join(outputDir, `${revision}-${name}`);
      results[name] = await runRequirements(target, revision, folder, options.timeoutMs);
    }
    for (const scenario of [...requirements.scored, ...requirements.notScored.keys()]) {
      const notScoredBecause = requirements.notScored.get(scenario);
      const judge = judgeOf(scenario, notScoredBecause, targets.through !== undefined);
      const report: ScenarioReport = {
        scenario,
        revision,
        scored: notScoredBecause === undefined,
        ...(notScoredBecause === undefined ? {} : { notScoredBecause }),
        judge,
        ...(SUITE_FIXTURES[scenario] ? { needs: SUITE_FIXTURES[scenario] } : {}),
        results: Object.fromEntries(
          Object.entries(results)
            .map(([name, byScenario]) => [name, byScenario.get(scenario)])
            .filter(([, counts]) => counts !== undefined),
        ),
        ok: undefined,
        same: undefined,
        lost: undefined,
      };
      const { backend, through } = report.results;
      if (backend !== undefined && through !== undefined) {
        report.same = sameCounts(backend, through);
        report.lost = lostThrough(backend, through);
      }
      if (judge === 'gateway' || judge === 'backend' || judge === 'through') {
        const counts = report.results[judge];
        report.ok = counts !== undefined && isClean(counts);
        // What Portcullis forwards must pass there as it passes directly.
        if (report.same === false) report.ok = false;
      }
      // Nothing that passes directly may fail through Portcullis, judged or not.
      if (report.lost === true) report.ok = false;
      scenarios.push(report);
    }
  }
  return { scenarios, ok: scenarios.every((s) => s.ok !== false), outputDir };
}

/**
 * Beyond the scored lists, the scenarios the suite added after a revision
 * shipped or keeps pending that Portcullis holds itself to.
 */
const JUDGED_UNSCORED: ReadonlySet<string> = new Set([
  'server-session-lifecycle',
  'http-header-validation',
  'http-custom-header-server-validation',
  // The tasks extension (an extension: never scored), on the fixture's tasks tools.
  ...judgedTaskScenarios(),
]);

/** The tasks scenarios that check something today (the suite skips its status notifications). */
export function judgedTaskScenarios(): string[] {
  return TASK_SCENARIOS.filter((scenario) => scenario !== 'tasks-status-notifications');
}

function judgeOf(
  scenario: string,
  notScoredBecause: string | undefined,
  through: boolean,
): ScenarioReport['judge'] {
  if (notScoredBecause !== undefined && !JUDGED_UNSCORED.has(scenario)) return 'not-scored';
  if (SUITE_FIXTURES[scenario]) return through ? 'through' : 'suite-fixtures';
  return BACKEND_SCENARIOS.has(scenario) ? 'backend' : 'gateway';
}

function sameCounts(direct: Counts, through: Counts): boolean {
  return direct.passed === through.passed && direct.failed === through.failed;
}

/** A check fails through that does not fail directly. */
export function lostThrough(direct: Counts, through: Counts): boolean {
  const failsDirectly = new Set(
    direct.problems.filter((p) => p.status === 'FAILURE').map((p) => p.id),
  );
  return through.problems.some((p) => p.status === 'FAILURE' && !failsDirectly.has(p.id));
}

export function isClean(counts: Counts): boolean {
  return counts.passed > 0 && counts.failed === 0 && counts.warnings === 0;
}

/** The revision's frozen server scenarios: scored, and not scored with the reason. */
function requirementsOf(revision: Revision): { scored: string[]; notScored: Map<string, string> } {
  const text = readFileSync(join(SUITE, 'requirements', `${revision}.yaml`), 'utf8');
  const parsed = yaml.load(text) as {
    server?: string[];
    not_scored?: { scenario: string; leg: string; reason: string }[];
  };
  return {
    scored: parsed.server ?? [],
    notScored: new Map(
      (parsed.not_scored ?? [])
        .filter((entry) => entry.leg === 'server')
        .map((entry) => [entry.scenario, entry.reason]),
    ),
  };
}

/**
 * Runs the named server scenarios against one target (through the
 * header-adding proxy), each on its own: their counts by scenario. With
 * `revision`, each is run at that revision's wire even where the suite does
 * not apply it there (`--force`).
 */
export async function runScenarios(
  target: ConformanceTarget,
  scenarios: readonly string[],
  options: { revision?: Revision; outputDir?: string; timeoutMs?: number } = {},
): Promise<Map<string, Counts>> {
  const outputDir = options.outputDir ?? (await mkdtemp(join(tmpdir(), 'portcullis-conformance-')));
  const proxy = await startAuthProxy(target);
  try {
    for (const scenario of scenarios)
      await runSuite([
        'server',
        ...['--url', proxy.url, '-o', outputDir, '--timeout', String(options.timeoutMs ?? 30_000)],
        ...['--scenario', scenario],
        ...(options.revision === undefined ? [] : ['--spec-version', options.revision, '--force']),
      ]);
  } finally {
    await proxy.close();
  }
  return countsIn(outputDir);
}

async function runRequirements(
  target: ConformanceTarget,
  revision: Revision,
  outputDir: string,
  timeoutMs = 30_000,
): Promise<Map<string, Counts>> {
  const proxy = await startAuthProxy(target);
  try {
    await runSuite([
      'server',
      ...['--url', proxy.url, '-o', outputDir, '--timeout', String(timeoutMs)],
      ...['--requirements', revision],
    ]);
  } finally {
    await proxy.close();
  }
  return countsIn(outputDir);
}

/** What the suite wrote to `outputDir`: each scenario's counts. */
async function countsIn(outputDir: string): Promise<Map<string, Counts>> {
  const results = new Map<string, Counts>();
  if (!existsSync(outputDir)) return results;
  for (const entry of await readdir(outputDir, { withFileTypes: true })) {
    // The suite writes `server-<scenario>-<timestamp>/checks.json` per scenario.
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry.name);
    if (!entry.isDirectory() || !match) continue;
    const file = join(outputDir, entry.name, 'checks.json');
    const checks = existsSync(file)
      ? (JSON.parse(await readFile(file, 'utf8')) as Check[])
      : undefined;
    results.set(match[1]!, countsOf(checks));
  }
  return results;
}

export function countsOf(checks: Check[] | undefined): Counts {
  const counts: Counts = { passed: 0, failed: 0, warnings: 0, other: 0, problems: [] };
  if (checks === undefined) {
    counts.failed = 1;
    counts.problems.push({
      id: 'results',
      status: 'FAILURE',
      message: 'the suite wrote no result',
    });
    return counts;
  }
  for (const check of checks) {
    if (check.status === 'SUCCESS') counts.passed++;
    else if (check.status === 'FAILURE') counts.failed++;
    else if (check.status === 'WARNING') counts.warnings++;
    else counts.other++;
    if (check.status === 'FAILURE' || check.status === 'WARNING') {
      counts.problems.push({
        id: String(check.id),
        status: String(check.status),
        message: String(check.errorMessage ?? ''),
      });
    }
  }
  return counts;
}

/** The table: one row per scenario and revision, then the problems of every judged failure. */
export function formatReport(report: ConformanceReport): string {
  const width = Math.max(...report.scenarios.map((s) => s.scenario.length));
  const cell = (counts: Counts | undefined) =>
    counts === undefined
      ? '—'.padEnd(12)
      : `${counts.passed}/${counts.failed}${counts.warnings ? ` w${counts.warnings}` : ''}`.padEnd(
          12,
        );
  const lines = [
    `MCP conformance, server scenarios (results in ${report.outputDir})`,
    `${'verdict'.padEnd(7)}  ${'revision'.padEnd(10)}  ${'scenario'.padEnd(width)}  ${'gateway'.padEnd(12)}${'direct'.padEnd(12)}${'through'.padEnd(12)}${'='.padEnd(3)}judged on / why not`,
  ];
  for (const s of report.scenarios) {
    const verdict = s.ok === undefined ? 'n/a' : s.ok ? 'PASS' : 'FAIL';
    const why =
      s.judge === 'suite-fixtures'
        ? `needs the suite's fixture: ${s.needs}`
        : s.judge === 'not-scored'
          ? `not scored: ${s.notScoredBecause}`
          : `${s.judge}${s.scored ? '' : ` (not scored: ${s.notScoredBecause})`}`;
    lines.push(
      `${verdict.padEnd(7)}  ${s.revision.padEnd(10)}  ${s.scenario.padEnd(width)}  ${cell(s.results.gateway)}${cell(s.results.backend)}${cell(s.results.through)}${(s.lost ? 'L' : s.same === undefined ? '' : s.same ? '=' : '≠').padEnd(3)}${why}`,
    );
  }
  for (const s of report.scenarios.filter((s) => s.ok === false)) {
    const counts = s.results[s.judge as TargetName];
    for (const p of counts?.problems ?? []) {
      lines.push(`  ${s.revision} ${s.scenario}: ${p.status} ${p.id}: ${p.message}`);
    }
    if (s.same === false || s.lost === true) {
      const { backend, through } = s.results;
      lines.push(
        `  ${s.revision} ${s.scenario}: through Portcullis ${through!.passed}/${through!.failed}, directly ${backend!.passed}/${backend!.failed}`,
      );
      for (const p of through?.problems ?? [])
        lines.push(`    through: ${p.status} ${p.id}: ${p.message}`);
    }
  }
  for (const revision of new Set(report.scenarios.map((s) => s.revision))) {
    for (const target of ['gateway', 'backend', 'through'] as const) {
      const all = report.scenarios.filter((s) => s.revision === revision && s.results[target]);
      if (all.length === 0) continue;
      const passed = all.reduce((n, s) => n + s.results[target]!.passed, 0);
      const failed = all.reduce((n, s) => n + s.results[target]!.failed, 0);
      // The gateway's own /mcp answers for what it judges; the fixture, directly or through, for all.
      const required = all.filter(
        (s) =>
          s.scored && s.judge !== 'not-scored' && (target !== 'gateway' || s.judge === 'gateway'),
      );
      const requiredFailed = required.filter((s) => s.results[target]!.failed > 0).length;
      lines.push(
        `${revision} ${target}: ${passed} checks passed, ${failed} failed (every scenario run); required scenarios with a failure: ${requiredFailed} of ${required.length}`,
      );
    }
  }
  const compared = report.scenarios.filter((s) => s.same !== undefined);
  if (compared.length > 0)
    lines.push(
      `through Portcullis the same as directly: ${compared.filter((s) => s.same).length} of ${compared.length} scenarios`,
    );
  const judged = report.scenarios.filter((s) => s.ok !== undefined);
  lines.push(
    `${judged.filter((s) => s.ok).length} of ${judged.length} judged scenarios pass${report.ok ? '' : ': some FAIL'}`,
  );
  return lines.join('\n');
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

/** Runs the suite's CLI; its exit code is not the verdict (the checks are). */
export function runSuite(args: string[]): Promise<string> {
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
