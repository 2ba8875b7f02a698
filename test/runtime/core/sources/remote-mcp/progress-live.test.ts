/**
 * Progress and log messages are relayed while the call runs, not with its
 * result: the upstream tool reports progress (or logs a message) and then
 * waits, and only the agent having seen it lets the tool finish (a relay that
 * waited for the whole reply would never deliver it), so it arrives on the
 * agent's reply stream before the result.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeActions } from '../../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import { mcpClient, startTestGateway, type TestGateway } from '../../../../support/gateway.ts';
import {
  startUpstream,
  type Upstream,
  type UpstreamKind,
} from '../../../../support/remote/upstream-servers.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } });
});
afterAll(() => gateway?.close());

describe.each<UpstreamKind>(['stateful', 'modern'])('live progress from a %s upstream', (kind) => {
  let upstream: Upstream;
  let client: Client;

  beforeAll(async () => {
    upstream = await startUpstream(kind, { gateTool: true, logTool: true });
    const ctx = gateway.running.gateway.operator('test');
    await connectUrl(ctx, { workspace: 'default', url: upstream.url, name: `gate-${kind}` });
    await changeActions(ctx, 'review', {
      workspace: 'default',
      connection: `gate-${kind}`,
      all: true,
    });
    const { key } = await createAgent(ctx, { workspace: 'default', name: `watcher-${kind}` });
    await grant(ctx, {
      workspace: 'default',
      agent: `watcher-${kind}`,
      connection: `gate-${kind}`,
      scope: 'all',
    });
    client = await mcpClient(gateway.url, key);
  });
  afterAll(async () => {
    await client?.close();
    await upstream?.close();
  });

  it('reaches the agent before the upstream has answered', async () => {
    const seen: string[] = [];
    const result = await client.callTool({ name: `gate-${kind}__gate`, arguments: {} }, undefined, {
      onprogress: (progress) => {
        seen.push(`${progress.progress}/${progress.total} ${progress.message}`);
        upstream.open();
      },
      timeout: 5_000,
    });
    expect(seen).toEqual(['1/2 waiting']);
    expect(result.content).toEqual([{ type: 'text', text: 'through the gate' }]);
  });

  it("relays the upstream's log message before the result", async () => {
    const seen: unknown[] = [];
    // The gateway sends log messages to a client that asked for them.
    await client.setLoggingLevel('info');
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      seen.push(notification.params);
      upstream.open();
    });
    const result = await client.callTool(
      { name: `gate-${kind}__shout`, arguments: {} },
      undefined,
      {
        timeout: 5_000,
      },
    );
    seen.push('result');
    expect(seen).toEqual([
      { level: 'warning', logger: 'fixture', data: { said: 'hello' } },
      'result',
    ]);
    expect(result.content).toEqual([{ type: 'text', text: 'shouted' }]);
  });
});
