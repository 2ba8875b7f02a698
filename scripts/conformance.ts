/**
 * Runs the MCP conformance suite against Portcullis's MCP endpoint and prints
 * pass/fail counts per scenario; exits 1 when an applicable scenario fails.
 *
 *   tsx scripts/conformance.ts                 the applicable scenarios, fixture endpoint
 *   tsx scripts/conformance.ts --requirements  the whole 2025-11-25 requirement set
 *   tsx scripts/conformance.ts --spec-version 2025-06-18
 *   tsx scripts/conformance.ts --url http://127.0.0.1:8080/mcp   another endpoint;
 *       the credential comes from PORTCULLIS_CONFORMANCE_AUTHORIZATION ("Bearer ...")
 *   -o DIR                                     keep the suite's results in DIR
 *
 * Without --url it starts the endpoint in process over a fixture tool host.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { FIXTURE_AGENTS } from './conformance/fixture-host.ts';
import { startFixtureServer } from './conformance/fixture-server.ts';
import {
  type ConformanceTarget,
  formatSummary,
  type RunConformanceOptions,
  runConformance,
} from './conformance/run-conformance.ts';

export {
  APPLICABLE_SCENARIOS,
  type ConformanceTarget,
  formatSummary,
  runConformance,
  type Summary,
} from './conformance/run-conformance.ts';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      requirements: { type: 'boolean', default: false },
      'spec-version': { type: 'string' },
      'output-dir': { type: 'string', short: 'o' },
    },
  });
  const options: RunConformanceOptions = {
    ...(values.requirements ? { scenarios: 'requirements' as const } : {}),
    ...(values['spec-version'] ? { specVersion: values['spec-version'] } : {}),
    ...(values['output-dir'] ? { outputDir: values['output-dir'] } : {}),
  };

  let target: ConformanceTarget;
  let stop = async () => {};
  if (values.url) {
    const authorization = process.env.PORTCULLIS_CONFORMANCE_AUTHORIZATION;
    if (!authorization) {
      console.error('--url needs PORTCULLIS_CONFORMANCE_AUTHORIZATION (e.g. "Bearer pk_...")');
      return 2;
    }
    target = { url: values.url, authorization };
  } else {
    const server = await startFixtureServer();
    target = { url: server.url, authorization: `Bearer ${FIXTURE_AGENTS.alice.key}` };
    stop = server.close;
  }
  try {
    const summary = await runConformance(target, options);
    console.log(formatSummary(summary));
    return summary.ok ? 0 : 1;
  } finally {
    await stop();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
