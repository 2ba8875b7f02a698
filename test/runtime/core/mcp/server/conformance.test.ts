/**
 * The MCP conformance suite's server requirement sets, 2025-11-25 and
 * 2026-07-28, against the real gateway (governance on; an agent with no grant
 * yet), against the endpoint over the suite's fixtures (the reference tools,
 * resources and prompts and the 2026-07-28 tools) directly, and against the
 * same fixture connected as a remote MCP connection and reached through the
 * gateway on /mcp/c/fixture, each through the header-adding loopback proxy
 * (the suite sends no credential). Every judged scenario must pass with no
 * failure and no warning, and through Portcullis every scenario must count
 * what it counts directly, with no check failing through that passes
 * directly, at both revisions. The tasks extension's scenarios (2026-07-28
 * in the suite, judged on the fixture's tasks tools) are also run forced to
 * the 2025-11-25 session wire, and there too Portcullis loses nothing; and
 * through Portcullis with the fixture's task tools set to `ask`, each held
 * call approved as it appears: every judged one passes there too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FixtureTargets,
  startFixtureTargets,
} from '../../../../../scripts/conformance/fixture-upstream.ts';
import {
  heldTasksOk,
  runHeldTaskScenarios,
} from '../../../../../scripts/conformance/held-tasks.ts';
import {
  type ConformanceTarget,
  isClean,
  judgedTaskScenarios,
  lostThrough,
  REVISIONS,
  runConformance,
  runScenarios,
  TASK_SCENARIOS,
} from '../../../../../scripts/conformance/run-conformance.ts';
import { adminClient, startTestGateway, type TestGateway } from '../../../../support/gateway.ts';

let gateway: TestGateway;
let fixture: FixtureTargets;
let targets: { gateway: ConformanceTarget; backend: ConformanceTarget; through: ConformanceTarget };

beforeAll(async () => {
  gateway = await startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } });
  const admin = adminClient(gateway.url, gateway.adminToken!);
  const { key } = (await admin('POST', '/workspaces/default/agents', { name: 'conformance' })).body;
  fixture = await startFixtureTargets(gateway.running.gateway.operator('test'), gateway.url);
  targets = {
    gateway: { url: `${gateway.url}/mcp`, authorization: `Bearer ${key}` },
    backend: fixture.backend,
    through: fixture.through,
  };
});

afterAll(async () => {
  await fixture?.close();
  await gateway?.close();
});

/** The scenarios of the suite's reference fixtures, judged through Portcullis (both revisions). */
const THROUGH_BOTH = [
  'completion-complete',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-error',
  'tools-call-with-progress',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
];
const THROUGH: Record<(typeof REVISIONS)[number], string[]> = {
  '2025-11-25': [
    ...THROUGH_BOTH,
    'tools-call-with-logging',
    'tools-call-sampling',
    'tools-call-elicitation',
    'elicitation-sep1034-defaults',
    'elicitation-sep1330-enums',
    'resources-subscribe',
    'resources-unsubscribe',
  ],
  '2026-07-28': THROUGH_BOTH,
};

/** Scenarios that must be judged (not skipped as needing the suite's fixtures), per revision. */
const MUST_JUDGE: Record<(typeof REVISIONS)[number], string[]> = {
  '2025-11-25': [
    'server-initialize',
    'server-session-lifecycle',
    'logging-set-level',
    'ping',
    'tools-list',
    'resources-list',
    'prompts-list',
    'server-sse-multiple-streams',
    'dns-rebinding-protection',
  ],
  '2026-07-28': [
    'server-stateless',
    'tools-list',
    'server-sse-multiple-streams',
    'sep-2164-resource-not-found',
    'dns-rebinding-protection',
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
    ...TASK_SCENARIOS.filter((scenario) => scenario !== 'tasks-status-notifications'),
  ],
};

describe('the MCP conformance suite', () => {
  it.each(REVISIONS)(
    'passes every judged server scenario of %s',
    async (revision) => {
      const report = await runConformance(targets, { revisions: [revision] });
      const judged = report.scenarios.filter((s) => s.ok !== undefined);
      expect(judged.map((s) => s.scenario)).toEqual(expect.arrayContaining(MUST_JUDGE[revision]));
      expect(judged.filter((s) => s.judge === 'through').map((s) => s.scenario)).toEqual(
        expect.arrayContaining(THROUGH[revision]),
      );
      // Through Portcullis, every scenario counts what it counts against the fixture directly.
      const differing = report.scenarios
        .filter((s) => s.same !== true)
        .map((s) => ({
          scenario: s.scenario,
          direct: s.results.backend,
          through: s.results.through,
        }));
      expect(differing).toEqual([]);
      // No check that passes directly fails through Portcullis.
      const lost = report.scenarios
        .filter((s) => s.lost !== false)
        .map((s) => ({ scenario: s.scenario, through: s.results.through?.problems }));
      expect(lost).toEqual([]);
      // The gateway's own /mcp declares every capability whose methods it answers.
      const undeclared = report.scenarios
        .flatMap((s) => s.results.gateway?.problems ?? [])
        .filter((p) => p.id === 'sep-2575-server-declares-prompts-in-discover');
      expect(undeclared).toEqual([]);
      const failing = judged
        .filter((s) => !s.ok)
        .map((s) => ({
          scenario: s.scenario,
          problems: s.results[s.judge as 'through']?.problems,
        }));
      expect(failing).toEqual([]);
      expect(report.ok).toBe(true);
      // Three runs of the suite's server scenarios: minutes on a shared machine.
    },
    600_000,
  );

  it('loses nothing of the tasks scenarios through Portcullis on the 2025-11-25 session wire', async () => {
    const direct = await runScenarios(targets.backend, TASK_SCENARIOS, { revision: '2025-11-25' });
    const through = await runScenarios(targets.through, TASK_SCENARIOS, {
      revision: '2025-11-25',
    });
    expect([...through.keys()].sort()).toEqual([...direct.keys()].sort());
    const differing = [...direct]
      .map(([scenario, counts]) => ({ scenario, direct: counts, through: through.get(scenario)! }))
      .filter(
        ({ direct, through }) =>
          direct.passed !== through.passed ||
          direct.failed !== through.failed ||
          lostThrough(direct, through),
      );
    expect(differing).toEqual([]);
    // Most of each scenario holds on that wire too (what fails there fails directly as well).
    const passed = [...through.values()].reduce((sum, counts) => sum + counts.passed, 0);
    expect(passed).toBeGreaterThan(25);
  }, 600_000);

  it('passes every judged tasks scenario through Portcullis with the task tools held for approval', async () => {
    const run = await runHeldTaskScenarios(gateway.running.gateway.operator('test'), gateway.url);
    const { counts, approved } = run;
    expect([...counts.keys()].sort()).toEqual(judgedTaskScenarios().sort());
    const failing = [...counts]
      .filter(([, c]) => !isClean(c))
      .map(([scenario, c]) => ({ scenario, problems: c.problems }));
    expect(failing).toEqual([]);
    // Held and approved, not passed through: the scenarios' calls of those tools waited for it.
    expect(approved).toBeGreaterThan(10);
    // What `npm run conformance` says of the same run.
    expect(heldTasksOk(run)).toBe(true);
  }, 600_000);
});
