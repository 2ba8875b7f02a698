/**
 * The MCP conformance suite's scenarios that apply to any tools server, against
 * the endpoint over the fixture host, through the header-adding proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APPLICABLE_SCENARIOS,
  runConformance,
  type Summary,
} from '../../../scripts/conformance/run-conformance.ts';
import { FIXTURE_AGENTS } from '../../support/mcp/fixture-backend.ts';
import { type FixtureServer, startFixtureServer } from '../../support/mcp/fixture-server.ts';

describe('MCP conformance (server scenarios that apply to any tools server)', () => {
  let server: FixtureServer;

  beforeAll(async () => {
    server = await startFixtureServer();
  });
  afterAll(() => server.close());

  function target() {
    return { url: server.url, authorization: `Bearer ${FIXTURE_AGENTS.alice.key}` };
  }

  function verdicts(summary: Summary) {
    return summary.scenarios.map((s) => ({
      scenario: s.scenario,
      failed: s.failed,
      warnings: s.warnings,
      problems: s.problems,
      ran: s.passed > 0,
    }));
  }

  it('passes every applicable scenario at 2025-11-25', async () => {
    const summary = await runConformance(target());
    expect(summary.specVersion).toBe('2025-11-25');
    expect(summary.scenarios.map((s) => s.scenario)).toEqual([...APPLICABLE_SCENARIOS]);
    expect(summary.scenarios.every((s) => !s.notAtThisVersion)).toBe(true);
    expect(verdicts(summary)).toEqual(
      APPLICABLE_SCENARIOS.map((scenario) => ({
        scenario,
        failed: 0,
        warnings: 0,
        problems: [],
        ran: true,
      })),
    );
    expect(summary.ok).toBe(true);
  });

  it('passes those that exist at 2025-06-18', async () => {
    const summary = await runConformance(target(), { specVersion: '2025-06-18' });
    const run = summary.scenarios.filter((s) => !s.notAtThisVersion);
    expect(run.map((s) => s.scenario)).toEqual([
      'server-initialize',
      'server-session-lifecycle',
      'ping',
      'tools-list',
    ]);
    for (const s of run) expect(s).toMatchObject({ failed: 0, warnings: 0, problems: [] });
    expect(summary.ok).toBe(true);
  });
});
