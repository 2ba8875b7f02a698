/**
 * The MCP conformance suite's client authorization scenarios against
 * Portcullis's upstream OAuth engine, through the command the suite starts
 * (`oauth-client.ts`): `conformance client --suite auth`, and the `auth/*`
 * scenarios of each revision's client requirement set
 * (`--requirements 2025-11-25`, `--requirements 2026-07-28`, each at its
 * own wire). A requirement set's other client scenarios (tools_call,
 * elicitation, ...) exercise an MCP client's features beyond sign-in; the
 * suite runs them too, and they are left out of this report.
 *
 * Judged: every scenario of the auth suite, and every scored `auth/*`
 * scenario of a requirement set: at least one check passed, none failed,
 * no warning. The requirement sets' extensions (client credentials, DPoP,
 * enterprise-managed, workload identity) are run and reported, not judged.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import yaml from 'js-yaml';
import { NODE_BUNDLE } from '../node-bundle.ts';
import {
  type Check,
  type Counts,
  countsOf,
  isClean,
  REVISIONS,
  type Revision,
  runSuite,
  SUITE,
} from './run-conformance.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Under the repo, so the bundle's packages resolve from its node_modules. */
const BUNDLE = join(REPO_ROOT, 'node_modules/.cache/portcullis/oauth-client.mjs');

/**
 * How the suite starts Portcullis's OAuth client (it appends the server
 * URL): the command bundled once per run with esbuild, so each of the
 * dozens of processes the suite starts at once is plain Node (0.6 s) rather
 * than a TypeScript loader compiling the runtime (4 s on a loaded machine).
 */
export async function oauthClientCommand(): Promise<string> {
  await build({
    entryPoints: [join(REPO_ROOT, 'scripts/conformance/oauth-client.ts')],
    outfile: BUNDLE,
    ...NODE_BUNDLE,
  });
  return `${process.execPath} ${BUNDLE}`;
}

/**
 * How the extension scenarios start Portcullis as a whole (`workspace-client.ts`:
 * a gateway whose workspace shares a connection to the scenario's server by
 * client credentials; `enterprise-client.ts`: a member's calls carry a token
 * redeemed for an ID-JAG of the scenario's IdP), bundled as above.
 */
export async function gatewayClientCommand(
  entry: 'workspace-client' | 'enterprise-client',
): Promise<string> {
  const bundle = join(REPO_ROOT, `node_modules/.cache/portcullis/${entry}.mjs`);
  await build({
    entryPoints: [join(REPO_ROOT, `scripts/conformance/${entry}.ts`)],
    outfile: bundle,
    ...NODE_BUNDLE,
  });
  return `${process.execPath} ${bundle} --root ${REPO_ROOT}`;
}

/**
 * The suite's client credentials scenarios (the `oauth-client-credentials`
 * extension), with Portcullis's workspace as the client: judged as the
 * auth suite's are (a check passed, none failed, no warning).
 */
export const CLIENT_CREDENTIALS_SCENARIOS = [
  'auth/client-credentials-basic',
  'auth/client-credentials-jwt',
] as const;

/**
 * The suite's Enterprise-Managed Authorization scenario (SEP-990), with
 * Portcullis's member as the client. `auth/wif-jwt-bearer` is not run: it
 * wants the client to present a workload's own JWT, and the gateway has no
 * workload identity to take one from (docs/upstream-sign-in.md).
 */
export const ENTERPRISE_SCENARIOS = ['auth/enterprise-managed-authorization'] as const;

export function runClientCredentialsConformance(
  options: Pick<ClientAuthOptions, 'outputDir' | 'timeoutMs'> = {},
): Promise<ClientAuthReport> {
  return runGatewayScenarios('workspace-client', CLIENT_CREDENTIALS_SCENARIOS, options);
}

export function runEnterpriseConformance(
  options: Pick<ClientAuthOptions, 'outputDir' | 'timeoutMs'> = {},
): Promise<ClientAuthReport> {
  return runGatewayScenarios('enterprise-client', ENTERPRISE_SCENARIOS, options);
}

async function runGatewayScenarios(
  entry: 'workspace-client' | 'enterprise-client',
  list: readonly string[],
  options: Pick<ClientAuthOptions, 'outputDir' | 'timeoutMs'>,
): Promise<ClientAuthReport> {
  const outputDir = options.outputDir ?? (await mkdtemp(join(tmpdir(), `portcullis-${entry}-`)));
  const command = await gatewayClientCommand(entry);
  const scenarios: ClientAuthScenario[] = [];
  for (const scenario of list) {
    const folder = join(outputDir, scenario.replace('/', '-'));
    await runSuite([
      'client',
      ...['--command', command, '--scenario', scenario],
      ...['--timeout', String(options.timeoutMs ?? 60_000), '-o', folder],
    ]);
    const counts = (await authResults(folder)).get(scenario) ?? countsOf(undefined);
    scenarios.push({ part: 'suite auth', scenario, counts, ok: isClean(counts) });
  }
  return { scenarios, ok: scenarios.every((s) => s.ok), outputDir };
}

export type ClientAuthPart = 'suite auth' | Revision;

export interface ClientAuthScenario {
  part: ClientAuthPart;
  scenario: string;
  counts: Counts;
  /** Why it is only reported (a requirement set's `not_scored` reason). */
  notScoredBecause?: string;
  /** Judged and clean; undefined when only reported. */
  ok: boolean | undefined;
}

export interface ClientAuthReport {
  scenarios: ClientAuthScenario[];
  ok: boolean;
  outputDir: string;
}

export interface ClientAuthOptions {
  /** Which runs: the auth suite and/or revisions' requirement sets. Default: all three. */
  parts?: readonly ClientAuthPart[];
  outputDir?: string;
  /** Per-scenario timeout. Default 30 s. */
  timeoutMs?: number;
}

export async function runClientAuthConformance(
  options: ClientAuthOptions = {},
): Promise<ClientAuthReport> {
  const outputDir =
    options.outputDir ?? (await mkdtemp(join(tmpdir(), 'portcullis-client-auth-conformance-')));
  const timeout = String(options.timeoutMs ?? 30_000);
  const parts = options.parts ?? (['suite auth', ...REVISIONS] as const);
  const command = await oauthClientCommand();
  const scenarios: ClientAuthScenario[] = [];
  for (const part of parts) {
    const folder = join(outputDir, part.replace(' ', '-'));
    const selection = part === 'suite auth' ? ['--suite', 'auth'] : ['--requirements', part];
    await runSuite([
      'client',
      ...['--command', command, ...selection],
      ...['--timeout', timeout, '-o', folder],
    ]);
    const results = await authResults(folder);
    const notScored = part === 'suite auth' ? new Map<string, string>() : notScoredOf(part);
    // A suite run that wrote nothing still has a row, and it fails.
    const expected =
      part === 'suite auth'
        ? results.size > 0
          ? [...results.keys()]
          : ['auth/*']
        : [...scoredAuthScenarios(part), ...notScored.keys()];
    for (const scenario of expected) {
      const counts = results.get(scenario) ?? countsOf(undefined);
      const because = notScored.get(scenario);
      scenarios.push({
        part,
        scenario,
        counts,
        ...(because === undefined ? {} : { notScoredBecause: because }),
        ok: because === undefined ? isClean(counts) : undefined,
      });
    }
  }
  return { scenarios, ok: scenarios.every((s) => s.ok !== false), outputDir };
}

/** `auth/<name>-<timestamp>/checks.json` per scenario the suite ran. */
async function authResults(folder: string): Promise<Map<string, Counts>> {
  const results = new Map<string, Counts>();
  const auth = join(folder, 'auth');
  if (!existsSync(auth)) return results;
  for (const entry of await readdir(auth, { withFileTypes: true })) {
    const match = /^(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry.name);
    if (!entry.isDirectory() || !match) continue;
    const file = join(auth, entry.name, 'checks.json');
    const checks = existsSync(file)
      ? (JSON.parse(await readFile(file, 'utf8')) as Check[])
      : undefined;
    results.set(`auth/${match[1]!}`, countsOf(checks));
  }
  return results;
}

interface Requirements {
  client?: string[];
  not_scored?: { scenario: string; leg: string; reason: string }[];
}

function requirements(revision: Revision): Requirements {
  return yaml.load(
    readFileSync(join(SUITE, 'requirements', `${revision}.yaml`), 'utf8'),
  ) as Requirements;
}

function scoredAuthScenarios(revision: Revision): string[] {
  return (requirements(revision).client ?? []).filter((s) => s.startsWith('auth/'));
}

function notScoredOf(revision: Revision): Map<string, string> {
  return new Map(
    (requirements(revision).not_scored ?? [])
      .filter((entry) => entry.leg === 'client' && entry.scenario.startsWith('auth/'))
      .map((entry) => [entry.scenario, entry.reason]),
  );
}

/** One row per scenario and part, the problems of each judged failure, the totals. */
export function formatClientAuthReport(report: ClientAuthReport): string {
  const width = Math.max(8, ...report.scenarios.map((s) => s.scenario.length));
  const lines = [
    `MCP conformance, client authorization scenarios against Portcullis's OAuth client (results in ${report.outputDir})`,
    `${'verdict'.padEnd(7)}  ${'run'.padEnd(10)}  ${'scenario'.padEnd(width)}  ${'checks'.padEnd(10)}why not judged`,
  ];
  for (const s of report.scenarios) {
    const verdict = s.ok === undefined ? 'n/a' : s.ok ? 'PASS' : 'FAIL';
    const { passed, failed, warnings } = s.counts;
    const checks = `${passed}/${failed}${warnings ? ` w${warnings}` : ''}`;
    lines.push(
      `${verdict.padEnd(7)}  ${s.part.padEnd(10)}  ${s.scenario.padEnd(width)}  ${checks.padEnd(10)}${s.notScoredBecause ? `not scored: ${s.notScoredBecause}` : ''}`,
    );
  }
  for (const s of report.scenarios.filter((s) => s.ok === false))
    for (const p of s.counts.problems)
      lines.push(`  ${s.part} ${s.scenario}: ${p.status} ${p.id}: ${p.message}`);
  for (const part of new Set(report.scenarios.map((s) => s.part))) {
    const judged = report.scenarios.filter((s) => s.part === part && s.ok !== undefined);
    const passed = judged.reduce((n, s) => n + s.counts.passed, 0);
    const failed = judged.reduce((n, s) => n + s.counts.failed + s.counts.warnings, 0);
    lines.push(
      `${part}: ${judged.filter((s) => s.ok).length} of ${judged.length} judged scenarios pass; ${passed} checks passed, ${failed} failed or warned`,
    );
  }
  return lines.join('\n');
}
