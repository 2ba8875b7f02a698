/**
 * `portcullis disconnect` run as its own process while a gateway serves: the
 * running server learns of it the way it learns of grant and policy changes
 * (the store's revision), forgets its live upstream session for that
 * connection and ends it upstream (the real SDK server sees the DELETE), and
 * the agent's next call fails cleanly with `tool_unknown`. Another
 * connection's session is left alone.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeActions } from '../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../runtime/core/operator/remote-connections.ts';
import {
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../support/gateway.ts';
import { startUpstream, type Upstream } from '../../../support/remote/upstream-servers.ts';
import { runPortcullis } from '../../../support/run-cli.ts';

let gateway: TestGateway;
let ctx: OperatorContext;
let doomed: Upstream;
let kept: Upstream;
let client: Client;

beforeAll(async () => {
  [gateway, doomed, kept] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startUpstream('stateful'),
    startUpstream('stateful'),
  ]);
  ctx = gateway.running.gateway.operator('test');
  const { key } = await createAgent(ctx, { workspace: 'default', name: 'caller' });
  for (const [name, upstream] of [
    ['doomed', doomed],
    ['kept', kept],
  ] as const) {
    await connectUrl(ctx, { workspace: 'default', url: upstream.url, name });
    await changeActions(ctx, 'review', { workspace: 'default', connection: name, all: true });
    await grant(ctx, { workspace: 'default', agent: 'caller', connection: name, scope: 'all' });
  }
  client = await mcpClient(gateway.url, key);
});
afterAll(async () => {
  await client?.close();
  await gateway?.close();
  await Promise.all([doomed?.close(), kept?.close()]);
});

describe('portcullis disconnect against a running gateway', () => {
  it("ends the server's live upstream session, and the next call finds no connection", async () => {
    for (const tool of ['doomed__get_weather', 'kept__get_weather'])
      expect((await callTool(client, tool, { city: 'Oslo' })).structuredContent).toEqual({
        city: 'Oslo',
        sky: 'sunny',
      });
    // The probe's and the refresh's sessions ended; the call's one lives in the server.
    const live = doomed.sessions.filter((id) => !doomed.ended.includes(id));
    expect(live).toHaveLength(1);

    const run = await runPortcullis(['disconnect', 'doomed'], {
      PORTCULLIS_DATA_DIR: gateway.dataDir,
    });
    expect(run.code).toBe(0);

    await expect.poll(() => doomed.ended, { timeout: 10_000 }).toContain(live[0]);
    const next = await callTool(client, 'doomed__get_weather', { city: 'Oslo' });
    expect(next.isError).toBe(true);
    expect(next.structuredContent?.error?.code).toBe('tool_unknown');
    // Nothing was sent upstream for it, and the other connection's session is untouched.
    expect(doomed.calls).toHaveLength(1);
    const keptLive = kept.sessions.filter((id) => !kept.ended.includes(id));
    expect(keptLive).toHaveLength(1);
    expect((await callTool(client, 'kept__get_weather', { city: 'Bergen' })).isError).toBeFalsy();
    expect(kept.calls.map((c) => c.sessionId)).toEqual([keptLive[0], keptLive[0]]);
  });
});
