/**
 * No false alarms on servers people trust: the review rules flag nothing in
 * the curated GitHub, Linear and Sentry definitions (every text they hold,
 * each read as if the other two were connections of the same workspace), nor
 * in what the gateway pins of the MCP project's reference server
 * (`@modelcontextprotocol/server-everything`, in a child process) and of the
 * conformance suite's reference fixtures (`EverythingBackend`), each
 * connected by its URL beside the curated names.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPlainObject } from '../../../../runtime/core/base/json-value.ts';
import { reviewFlags } from '../../../../runtime/core/governance/review-flags.ts';
import type { ReviewText } from '../../../../runtime/core/governance/review-item.ts';
import { listActions } from '../../../../runtime/core/operator/actions.ts';
import type { OperatorContext } from '../../../../runtime/core/operator/context.ts';
import { connectUrl } from '../../../../runtime/core/operator/remote-connections.ts';
import { remoteDefinitions } from '../../../../specs/index.ts';
import { ROOT } from '../../../support/fixtures.ts';
import { freePort } from '../../../support/free-port.ts';
import { startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { EverythingBackend } from '../../../support/mcp/everything-backend.ts';
import { FIXTURE_AGENTS } from '../../../support/mcp/fixture-backend.ts';
import { type McpTestServer, startMcpServer } from '../../../support/mcp/fixture-server.ts';
import {
  type PoisonedUpstream,
  startPoisonedUpstream,
  TRICKS,
} from '../../../support/remote/poisoned-upstream.ts';

/** Every string of a definition, with where it is. */
function textsOf(value: unknown, at = ''): ReviewText[] {
  if (typeof value === 'string') return [{ field: at || '/', text: value }];
  if (Array.isArray(value)) return value.flatMap((item, i) => textsOf(item, `${at}/${i}`));
  if (isPlainObject(value))
    return Object.entries(value).flatMap(([key, item]) => textsOf(item, `${at}/${key}`));
  return [];
}

describe('the curated remote definitions', () => {
  it.each(Object.entries(remoteDefinitions))('%s: nothing is flagged', (id, definition) => {
    const others = Object.keys(remoteDefinitions)
      .filter((other) => other !== id)
      .map((connection) => ({ connection, tools: [] }));
    const item = {
      kind: 'tool' as const,
      name: id,
      classification: 'read' as const,
      texts: textsOf(definition),
      asks: [],
    };
    expect(item.texts.length).toBeGreaterThan(3);
    expect(reviewFlags(item, { own: { connection: id, tools: [] }, others })).toEqual([]);
  });
});

let gateway: TestGateway;
let ctx: OperatorContext;
let everything: ChildProcess;
let fixtures: McpTestServer<EverythingBackend>;
let poisoned: PoisonedUpstream;

async function startEverything(): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js'),
      'streamableHttp',
    ],
    { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let said = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      if (said.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${said}`)));
  });
  return { child, url: `http://127.0.0.1:${port}/mcp` };
}

beforeAll(async () => {
  let started: Awaited<ReturnType<typeof startEverything>>;
  [gateway, started, fixtures, poisoned] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startEverything(),
    startMcpServer(new EverythingBackend()),
    startPoisonedUpstream(),
  ]);
  everything = started.child;
  ctx = gateway.running.gateway.operator('test');
  const workspace = 'default';
  await connectUrl(ctx, { workspace, url: started.url, name: 'everything' });
  await connectUrl(ctx, {
    workspace,
    url: fixtures.url,
    name: 'conformance',
    token: FIXTURE_AGENTS.alice.key,
  });
  await connectUrl(ctx, { workspace, url: poisoned.url, name: 'poisoned' });
}, 120_000);

afterAll(async () => {
  everything?.kill();
  await fixtures?.close();
  await poisoned?.close();
  await gateway?.close();
});

describe('reference servers, as the gateway pins them', () => {
  it.each([
    ['@modelcontextprotocol/server-everything', 'everything'],
    ["the conformance suite's reference fixtures", 'conformance'],
  ])('%s: every tool, prompt and resource pinned, none flagged', async (_name, connection) => {
    const actions = await listActions(ctx, { workspace: 'default', connection });
    expect(actions.length).toBeGreaterThan(5);
    expect(actions.filter((a) => a.flags).map((a) => [a.name, a.flags])).toEqual([]);
  });

  it('while a hostile server in the same workspace is flagged (the rules are running here)', async () => {
    const actions = await listActions(ctx, { workspace: 'default', connection: 'poisoned' });
    const flagged = actions.filter((a) => a.flags).map((a) => a.name);
    // Its names trick points at a `mail` connection this workspace does not have.
    const expected = Object.keys(TRICKS).filter((item) => item !== 'poisoned__lookup_contact');
    expect(flagged.sort()).toEqual(expected.sort());
  });
});
