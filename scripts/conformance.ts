/**
 * Runs the MCP conformance suite against Portcullis's MCP endpoint and prints
 * pass/fail counts per scenario; exits 1 when an applicable scenario fails.
 *
 *   tsx scripts/conformance.ts                 2025-11-25 requirements, the gateway itself
 *   tsx scripts/conformance.ts --all           also list the scenarios that do not apply
 *   tsx scripts/conformance.ts --spec-version 2025-06-18
 *   tsx scripts/conformance.ts --url http://127.0.0.1:8080/mcp   another endpoint;
 *       the credential comes from PORTCULLIS_CONFORMANCE_AUTHORIZATION ("Bearer ...")
 *   tsx scripts/conformance.ts --fixture       the endpoint over a fixture tool host
 *   -o DIR                                     keep the suite's results in DIR
 *
 * Without --url it starts the real gateway in process (a temporary data
 * folder, one agent) and runs the suite against its /mcp.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { configFromEnvironment } from '../runtime/core/config/config.ts';
import { createAgent } from '../runtime/core/operator/agents.ts';
import { startServer } from '../runtime/server.ts';
import { FIXTURE_AGENTS } from '../test/support/mcp/fixture-backend.ts';
import { startFixtureServer } from '../test/support/mcp/fixture-server.ts';
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
      fixture: { type: 'boolean', default: false },
      all: { type: 'boolean', default: false },
      'spec-version': { type: 'string' },
      'output-dir': { type: 'string', short: 'o' },
    },
  });
  const options: RunConformanceOptions = {
    all: values.all,
    ...(values['spec-version'] ? { specVersion: values['spec-version'] } : {}),
    ...(values['output-dir'] ? { outputDir: values['output-dir'] } : {}),
  };

  let target: ConformanceTarget;
  let stop = async () => {};
  if (values.url) {
    const authorization = process.env.PORTCULLIS_CONFORMANCE_AUTHORIZATION;
    if (!authorization) {
      console.error('--url needs PORTCULLIS_CONFORMANCE_AUTHORIZATION (e.g. "Bearer pck_...")');
      return 2;
    }
    target = { url: values.url, authorization };
  } else if (values.fixture) {
    const server = await startFixtureServer();
    target = { url: server.url, authorization: `Bearer ${FIXTURE_AGENTS.alice.key}` };
    stop = server.close;
  } else {
    const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-conformance-'));
    const running = await startServer(
      configFromEnvironment({ PORT: '0', PORTCULLIS_DATA_DIR: dataDir }),
      new URL('../generated/', import.meta.url),
    );
    const { key } = await createAgent(running.gateway.operator('conformance'), {
      workspace: 'default',
      name: 'conformance',
    });
    target = { url: `${running.url}/mcp`, authorization: `Bearer ${key}` };
    stop = async () => {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    };
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
