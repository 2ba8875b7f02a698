/**
 * The MCP conformance suite's server scenarios that apply to any server, against
 * the real gateway (governance on; an agent with no grant yet, so its tool list
 * is empty), through the header-adding loopback proxy, since the suite sends no
 * credential.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APPLICABLE_SCENARIOS,
  runConformance,
} from '../../../scripts/conformance/run-conformance.ts';
import { adminClient, startTestGateway, type TestGateway } from '../../support/gateway.ts';

let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  const admin = adminClient(gateway.url, gateway.adminToken!);
  key = (await admin('POST', '/workspaces/default/agents', { name: 'conformance' })).body.key;
});

afterAll(() => gateway?.close());

describe('the gateway under the MCP conformance suite', () => {
  it('passes every applicable server scenario at 2025-11-25', async () => {
    const summary = await runConformance({
      url: `${gateway.url}/mcp`,
      authorization: `Bearer ${key}`,
    });
    expect(summary.scenarios.map((s) => [s.scenario, s.failed, s.warnings])).toEqual(
      APPLICABLE_SCENARIOS.map((scenario) => [scenario, 0, 0]),
    );
    expect(summary.scenarios.every((s) => s.passed > 0)).toBe(true);
    expect(summary.ok).toBe(true);
  });
});
