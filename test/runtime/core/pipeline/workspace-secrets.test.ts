/**
 * A reply carries no credential the gateway holds for the workspace, not
 * only the calling connection's: two remote connections on real SDK v2
 * servers, each with its own key, and the server of `sec1` answers a tool
 * call with `sec2`'s key written plainly, hidden in JSON escapes and
 * percent-encoded; the agent receives none of them.
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

const KEY_1 = 'sec1-key-1a2b3c4d5e6f';
const KEY_2 = 'sec2-Key+9f/8e=7d6c5b4a';

let gateway: TestGateway;
let ctx: OperatorContext;
let first: Upstream;
let second: Upstream;
let agent: Client;

beforeAll(async () => {
  first = await startUpstream('stateful', {
    requireHeader: { name: 'X-Api-Key', value: KEY_1 },
    sabotage: ({ tool, id }) => {
      if (tool !== 'get_weather') return undefined;
      // sec2's key plainly, with its first letter as a JSON escape, and percent-encoded.
      const text = `plain ${KEY_2} escaped \\u0073${KEY_2.slice(1)} url ${encodeURIComponent(KEY_2)}`;
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"${text}"}]}}`,
      };
    },
  });
  second = await startUpstream('stateful', {
    requireHeader: { name: 'X-Api-Key', value: KEY_2 },
  });
  gateway = await startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } });
  ctx = gateway.running.gateway.operator('test');
  for (const [name, upstream, key] of [
    ['sec1', first, KEY_1],
    ['sec2', second, KEY_2],
  ] as const) {
    await connectUrl(ctx, {
      workspace: 'default',
      url: upstream.url,
      name,
      headers: { 'X-Api-Key': key },
    });
    await changeActions(ctx, 'review', { workspace: 'default', connection: name, all: true });
  }
  const { key } = await createAgent(ctx, { workspace: 'default', name: 'agent' });
  await grant(ctx, { workspace: 'default', agent: 'agent', connection: 'sec1', scope: 'all' });
  agent = await mcpClient(gateway.url, key);
});
afterAll(async () => {
  await agent?.close();
  await gateway?.close();
  await first?.close();
  await second?.close();
});

describe("a reply that carries another connection's key", () => {
  it('reaches the agent with every form of that key redacted', async () => {
    const reply = await callTool(agent, 'sec1__get_weather', { city: 'Oslo' });
    const text = reply.content[0]?.text ?? '';
    expect(text).toBe('plain [redacted] escaped [redacted] url [redacted]');
    const whole = JSON.stringify(reply);
    for (const form of [KEY_2, encodeURIComponent(KEY_2), KEY_2.slice(1)])
      expect(whole).not.toContain(form);
  });
});
