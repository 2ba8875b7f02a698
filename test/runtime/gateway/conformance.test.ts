/**
 * The MCP conformance suite's server requirement sets, 2025-11-25 and
 * 2026-07-28, against the real gateway (governance on; an agent with no grant
 * yet) and against the endpoint over the suite's 2026-07-28 fixture tools,
 * through the header-adding loopback proxy (the suite sends no credential).
 * Every scenario that does not need the suite's own reference fixtures is
 * judged, and must pass with no failure and no warning.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConformanceTarget,
  REVISIONS,
  runConformance,
} from '../../../scripts/conformance/run-conformance.ts';
import { adminClient, startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { ConformanceBackend } from '../../support/mcp/conformance-backend.ts';
import { FIXTURE_AGENTS } from '../../support/mcp/fixture-backend.ts';
import { type McpTestServer, startMcpServer } from '../../support/mcp/fixture-server.ts';

let gateway: TestGateway;
let backend: McpTestServer<ConformanceBackend>;
let targets: { gateway: ConformanceTarget; backend: ConformanceTarget };

beforeAll(async () => {
  gateway = await startTestGateway();
  backend = await startMcpServer(new ConformanceBackend());
  const admin = adminClient(gateway.url, gateway.adminToken!);
  const { key } = (await admin('POST', '/workspaces/default/agents', { name: 'conformance' })).body;
  targets = {
    gateway: { url: `${gateway.url}/mcp`, authorization: `Bearer ${key}` },
    backend: { url: backend.url, authorization: `Bearer ${FIXTURE_AGENTS.alice.key}` },
  };
});

afterAll(async () => {
  await backend?.close();
  await gateway?.close();
});

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
  ],
};

describe('the MCP conformance suite', () => {
  it.each(REVISIONS)('passes every judged server scenario of %s', async (revision) => {
    const report = await runConformance(targets, { revisions: [revision] });
    const judged = report.scenarios.filter((s) => s.ok !== undefined);
    expect(judged.map((s) => s.scenario)).toEqual(expect.arrayContaining(MUST_JUDGE[revision]));
    const failing = judged
      .filter((s) => !s.ok)
      .map((s) => ({ scenario: s.scenario, problems: s.results[s.judge as 'gateway']?.problems }));
    expect(failing).toEqual([]);
    expect(report.ok).toBe(true);
  });
});
