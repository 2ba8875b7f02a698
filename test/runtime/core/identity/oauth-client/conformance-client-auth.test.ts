/**
 * The MCP conformance suite's client authorization suite (`conformance
 * client --suite auth`: discovery variants, CIMD, scope selection and
 * step-up, the token endpoint's auth methods, a preregistered client)
 * against Portcullis's OAuth client command: every scenario passes, with no
 * failed check and no warning. The requirement sets' auth scenarios run in
 * `npm run conformance -- --part client-auth` (a few minutes).
 *
 * The client credentials extension's scenarios (`client_secret_basic` and
 * `private_key_jwt`) run against Portcullis as a whole: a gateway whose
 * workspace shares a connection to the scenario's server with its own client
 * at the scenario's authorization server (`workspace-client.ts`), an agent
 * calling the server's tool through it.
 *
 * The Enterprise-Managed Authorization scenario runs the same way
 * (`enterprise-client.ts`): the scenario's IdP as the company's, a member
 * whose sign-in there is kept, and the connection set with `--id-jag`: the
 * member's call carries a token the scenario's authorization server issued
 * for an ID-JAG its IdP issued for the member's ID token. `auth/wif-jwt-bearer`
 * is not run: the gateway has no workload identity to present.
 */
import { expect, it } from 'vitest';
import {
  CLIENT_CREDENTIALS_SCENARIOS,
  ENTERPRISE_SCENARIOS,
  formatClientAuthReport,
  runClientAuthConformance,
  runClientCredentialsConformance,
  runEnterpriseConformance,
} from '../../../../../scripts/conformance/client-auth.ts';

it('passes every scenario of the client auth suite', { timeout: 180_000 }, async () => {
  const report = await runClientAuthConformance({ parts: ['suite auth'] });
  const failing = report.scenarios.filter((s) => s.ok !== true);
  expect(failing, formatClientAuthReport(report)).toEqual([]);
  expect(report.scenarios.map((s) => s.scenario)).toEqual(
    expect.arrayContaining([
      'auth/metadata-default',
      'auth/metadata-var2',
      'auth/metadata-var3',
      'auth/basic-cimd',
      'auth/scope-step-up',
      'auth/scope-retry-limit',
      'auth/token-endpoint-auth-basic',
      'auth/pre-registration',
    ]),
  );
  expect(report.scenarios.reduce((n, s) => n + s.counts.failed + s.counts.warnings, 0)).toBe(0);
});

it("passes the client credentials scenarios as a workspace's shared connection", {
  timeout: 240_000,
}, async () => {
  const report = await runClientCredentialsConformance();
  expect(report.scenarios.map((s) => s.scenario)).toEqual([...CLIENT_CREDENTIALS_SCENARIOS]);
  expect(
    report.scenarios.filter((s) => s.ok !== true),
    formatClientAuthReport(report),
  ).toEqual([]);
  expect(report.scenarios.every((s) => s.counts.passed > 0)).toBe(true);
});

it("passes the Enterprise-Managed Authorization scenario with a member's ID-JAG", {
  timeout: 180_000,
}, async () => {
  const report = await runEnterpriseConformance();
  expect(report.scenarios.map((s) => s.scenario)).toEqual([...ENTERPRISE_SCENARIOS]);
  expect(
    report.scenarios.filter((s) => s.ok !== true),
    formatClientAuthReport(report),
  ).toEqual([]);
  expect(report.scenarios.every((s) => s.counts.passed > 0)).toBe(true);
});
