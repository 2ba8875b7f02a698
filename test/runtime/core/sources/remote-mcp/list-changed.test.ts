/**
 * A 2025-11-25 upstream that says its tool list changed has it discovered
 * again by the gateway on its own: the changed tool is blocked until reviewed,
 * and the review shows what changed since the contract last reviewed (kept
 * across further changes, gone once reviewed), in the API's listing and the
 * command's.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { changeActions, listActions } from '../../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import {
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../../support/gateway.ts';
import { startUpstream, type Upstream } from '../../../../support/remote/upstream-servers.ts';
import { runPortcullisHere } from '../../../../support/run-cli.ts';

let gateway: TestGateway;
let ctx: OperatorContext;
let upstream: Upstream;
let client: Client;

const until = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 150 && !(await check()); i++) await new Promise((r) => setTimeout(r, 20));
};

beforeAll(async () => {
  [gateway, upstream] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startUpstream('stateful'),
  ]);
  ctx = gateway.running.gateway.operator('test');
  await connectUrl(ctx, { workspace: 'default', url: upstream.url, name: 'listening' });
  await changeActions(ctx, 'review', { workspace: 'default', connection: 'listening', all: true });
  const { key } = await createAgent(ctx, { workspace: 'default', name: 'listener' });
  await grant(ctx, {
    workspace: 'default',
    agent: 'listener',
    connection: 'listening',
    scope: 'all',
  });
  client = await mcpClient(gateway.url, key);
  // A first call opens the upstream session, whose listening stream hears the changes.
  await callTool(client, 'listening__get_weather', { city: 'Oslo' });
});
afterAll(async () => {
  await client?.close();
  await gateway?.close();
  await upstream?.close();
});

const REVIEWED = 'Reports the weather of a city.';

/** The description of `get_weather` the gateway has on record. */
async function recordedDescription(): Promise<string | undefined> {
  const workspace = (await ctx.store.workspaces.byName('default'))!;
  const connection = (await ctx.store.connections.byName(workspace.id, 'listening'))!;
  const tools = await ctx.store.remoteTools.forConnection(connection.id);
  return tools.find((t) => t.name === 'get_weather')?.contract.description;
}

/** The server changes the description and says its list changed; resolves once the gateway has it. */
async function describeAs(description: string): Promise<void> {
  upstream.setDescription(description);
  if ((await recordedDescription()) === description) return;
  await upstream.listening();
  upstream.notifyToolsChanged();
  await until(async () => (await recordedDescription()) === description);
  expect(await recordedDescription()).toBe(description);
}

// Each test starts from the description every test reviewed.
beforeEach(async () => {
  await describeAs(REVIEWED);
  await changeActions(ctx, 'review', { workspace: 'default', connection: 'listening', all: true });
});

describe('notifications/tools/list_changed', () => {
  it('sends a changed tool back to review without anyone running refresh', async () => {
    const first = await callTool(client, 'listening__get_weather', { city: 'Oslo' });
    expect(first.structuredContent).toEqual({ city: 'Oslo', sky: 'sunny' });
    await describeAs('Changed behind your back.');
    const blocked = await callTool(client, 'listening__get_weather', { city: 'Oslo' });
    expect(blocked.structuredContent?.error?.code).toBe('contract_changed');
  });

  it('keeps what changed since the review for the review to show, and forgets it once reviewed', async () => {
    const weather = async () =>
      (await listActions(ctx, { workspace: 'default', connection: 'listening' })).find(
        (a) => a.action === 'get_weather',
      )!;
    await describeAs('Changed behind your back.');
    const first = await weather();
    expect(first.contractChanged).toBe(true);
    expect(first.changedSince).toEqual(expect.any(String));
    expect(first.changes).toEqual([
      {
        field: 'description',
        before: 'Reports the weather of a city.',
        after: 'Changed behind your back.',
        diff: expect.any(Array),
      },
    ]);
    // The word diff gives back both texts: what was reviewed and what the server says now.
    const diff = first.changes![0]!.diff as Array<{ op: string; text: string }>;
    const side = (skip: string) =>
      diff
        .filter((p) => p.op !== skip)
        .map((p) => p.text)
        .join('');
    expect([side('+'), side('-')]).toEqual([
      'Reports the weather of a city.',
      'Changed behind your back.',
    ]);

    // A second change before anyone reviewed: still measured against the reviewed contract.
    await describeAs('Reports the weather of a city, and deletes it.');
    const second = await weather();
    expect(second.changedSince).toBe(first.changedSince);
    expect(second.changes?.[0]).toMatchObject({
      field: 'description',
      before: 'Reports the weather of a city.',
      after: 'Reports the weather of a city, and deletes it.',
    });
    const parts = second.changes?.[0]?.diff as Array<{ op: string; text: string }>;
    expect(parts.filter((p) => p.op !== '=')).toEqual([{ op: '+', text: ', and deletes it' }]);

    const listed = await runPortcullisHere(['actions', 'listening'], {
      PORTCULLIS_DATA_DIR: gateway.dataDir,
    });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('listening__get_weather changed since its review (found ');
    expect(listed.stdout).toContain(
      '    description: Reports the weather of a city{+, and deletes it+}.',
    );

    await changeActions(ctx, 'review', {
      workspace: 'default',
      connection: 'listening',
      actions: ['get_weather'],
    });
    const reviewed = await weather();
    expect(reviewed.contractChanged).toBe(false);
    expect(reviewed.changes).toBeUndefined();
  });
});
