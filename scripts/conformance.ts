/**
 * Runs the MCP conformance suite against Portcullis and prints a table per
 * part; exits 1 when a judged scenario fails:
 *
 * - `server`: the server requirement sets (2025-11-25 and 2026-07-28)
 *   against the gateway, the suite's fixtures directly and the same fixtures
 *   through the gateway (`/mcp/c/fixture`) (`conformance/run-conformance.ts`);
 * - `held-tasks`: the tasks extension's scenarios through the gateway with
 *   the fixture's task tools set to `ask`, each held call approved as it
 *   appears (`conformance/held-tasks.ts`); at 2026-07-28 only, the one
 *   revision the suite judges them at, and only on the gateway started here;
 * - `client-auth`: the client authorization scenarios (`--suite auth`, and
 *   the `auth/*` scenarios of each revision's requirement set) against
 *   Portcullis's upstream OAuth client (`conformance/client-auth.ts`).
 *
 *   tsx scripts/conformance.ts                     every part, both revisions
 *   tsx scripts/conformance.ts --part client-auth  only the OAuth client's
 *   tsx scripts/conformance.ts --part held-tasks   only the held tasks scenarios
 *   tsx scripts/conformance.ts --revision 2026-07-28
 *   tsx scripts/conformance.ts --url http://127.0.0.1:8080/mcp   another endpoint as "gateway";
 *       the credential comes from PORTCULLIS_CONFORMANCE_AUTHORIZATION ("Bearer ...")
 *   -o DIR                                         keep the suite's results in DIR
 *
 * Without --url it starts the real gateway in process (a temporary data
 * folder, one agent with no grant) and runs the suite against its /mcp.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { configFromEnvironment } from '../runtime/config/config.ts';
import { createAgent } from '../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../runtime/core/operator/context.ts';
import { startServer } from '../runtime/server.ts';
import { EverythingBackend } from '../test/support/mcp/everything-backend.ts';
import { FIXTURE_AGENTS } from '../test/support/mcp/fixture-backend.ts';
import { startMcpServer } from '../test/support/mcp/fixture-server.ts';
import { formatClientAuthReport, runClientAuthConformance } from './conformance/client-auth.ts';
import { startFixtureTargets } from './conformance/fixture-upstream.ts';
import {
  formatHeldTaskReport,
  heldTasksOk,
  runHeldTaskScenarios,
} from './conformance/held-tasks.ts';
import {
  type ConformanceTarget,
  formatReport,
  REVISIONS,
  type Revision,
  runConformance,
} from './conformance/run-conformance.ts';
import { isMainModule } from './is-main-module.ts';

export { formatReport, runConformance } from './conformance/run-conformance.ts';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      revision: { type: 'string', multiple: true },
      'output-dir': { type: 'string', short: 'o' },
      part: { type: 'string', multiple: true },
    },
  });
  const parts = values.part ?? [...PARTS];
  for (const part of parts) {
    if (!(PARTS as readonly string[]).includes(part)) {
      console.error(`--part: ${part} is not one of ${PARTS.join(', ')}`);
      return 2;
    }
  }
  const revisions = (values.revision ?? [...REVISIONS]) as Revision[];
  for (const revision of revisions) {
    if (!(REVISIONS as readonly string[]).includes(revision)) {
      console.error(`--revision: ${revision} is not one of ${REVISIONS.join(', ')}`);
      return 2;
    }
  }
  const outputDir = values['output-dir'];
  let ok = true;
  if (parts.includes('server')) ok = (await serverPart(values.url, revisions, outputDir)) && ok;
  if (parts.includes('held-tasks')) ok = (await heldTasksPart(values.url, revisions)) && ok;
  if (parts.includes('client-auth')) {
    const report = await runClientAuthConformance({
      parts: ['suite auth', ...revisions],
      ...(outputDir ? { outputDir: join(outputDir, 'client-auth') } : {}),
    });
    console.log(formatClientAuthReport(report));
    ok = report.ok && ok;
  }
  return ok ? 0 : 1;
}

const PARTS = ['server', 'held-tasks', 'client-auth'] as const;

/**
 * The held tasks scenarios on a gateway started here (they set policies and
 * approve through its operator verbs); true when not run: another endpoint
 * (`--url`), or no revision the suite judges them at (2026-07-28).
 */
async function heldTasksPart(url: string | undefined, revisions: Revision[]): Promise<boolean> {
  if (url !== undefined) {
    console.log('held tasks scenarios: not run against --url (they need the gateway started here)');
    return true;
  }
  if (!revisions.includes('2026-07-28')) {
    console.log(
      'held tasks scenarios: not run; the suite judges its tasks scenarios at 2026-07-28 only',
    );
    return true;
  }
  const stops: (() => Promise<void>)[] = [];
  try {
    const started = await startGateway(stops);
    const run = await runHeldTaskScenarios(started.operator, started.url);
    console.log(formatHeldTaskReport(run));
    return heldTasksOk(run);
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

async function serverPart(
  url: string | undefined,
  revisions: Revision[],
  outputDir: string | undefined,
): Promise<boolean> {
  const stops: (() => Promise<void>)[] = [];
  try {
    const started = url ? undefined : await startGateway(stops);
    const gateway = url ? urlTarget(url) : started?.target;
    if (gateway === undefined) return false;
    // The suite's fixtures, directly and through the gateway started here.
    const targets: Parameters<typeof runConformance>[0] = { gateway };
    if (started) {
      const fixture = await startFixtureTargets(started.operator, started.url);
      stops.push(fixture.close);
      targets.backend = fixture.backend;
      targets.through = fixture.through;
    } else {
      const backendServer = await startMcpServer(new EverythingBackend());
      stops.push(backendServer.close, () => backendServer.backend.tasks.close());
      targets.backend = {
        url: backendServer.url,
        authorization: `Bearer ${FIXTURE_AGENTS.alice.key}`,
      };
    }
    const report = await runConformance(targets, {
      revisions,
      ...(outputDir ? { outputDir } : {}),
    });
    console.log(formatReport(report));
    return report.ok;
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

function urlTarget(url: string): ConformanceTarget | undefined {
  const authorization = process.env.PORTCULLIS_CONFORMANCE_AUTHORIZATION;
  if (!authorization) {
    console.error('--url needs PORTCULLIS_CONFORMANCE_AUTHORIZATION (e.g. "Bearer pck_...")');
    return undefined;
  }
  return { url, authorization };
}

async function startGateway(stops: (() => Promise<void>)[]): Promise<{
  target: ConformanceTarget;
  operator: OperatorContext;
  url: string;
}> {
  const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-conformance-'));
  const running = await startServer(
    configFromEnvironment({
      PORT: '0',
      PORTCULLIS_DATA_DIR: dataDir,
      PORTCULLIS_LOG_LEVEL: 'error',
      // The fixture upstream listens on loopback.
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
    }),
    new URL('../generated/', import.meta.url),
  );
  stops.push(async () => {
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const operator = running.gateway.operator('conformance');
  const { key } = await createAgent(operator, { workspace: 'default', name: 'conformance' });
  return {
    target: { url: `${running.url}/mcp`, authorization: `Bearer ${key}` },
    operator,
    url: running.url,
  };
}

if (isMainModule(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
