/**
 * Rate limits on a remote server's prompts and resources, as on tool calls
 * (call-limits.test.ts): a running gateway, a real SDK MCP server with a
 * prompt and a resource, an SDK client per agent. Past its agent's burst, a
 * `prompts/get` or `resources/read` is refused `rate_limited` (a JSON-RPC
 * server error naming the command that raises the limit, the wait in its
 * data), audited once as denied with that reason.
 * Every test uses an agent of its own.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../runtime/core/operator/grants.ts';
import {
  adminClient,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../support/gateway.ts';
import { connectReviewed } from '../../../support/remote/reviewed-connection.ts';
import { startUpstream, type Upstream } from '../../../support/remote/upstream-servers.ts';

let upstream: Upstream;
let gateway: TestGateway;
let ctx: OperatorContext;
let admin: ReturnType<typeof adminClient>;
let agents = 0;

beforeAll(async () => {
  upstream = await startUpstream('stateful', { resourcesAndPrompts: true });
  gateway = await startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } });
  ctx = gateway.running.gateway.operator('test');
  admin = adminClient(gateway.url, gateway.adminToken!);
  await createAgent(ctx, { workspace: 'default', name: 'limits-reviewer' });
  await connectReviewed(ctx, { url: upstream.url, name: 'docs' }, 'limits-reviewer');
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** A new agent granted reads on docs, limited to one call at once: its name and a client. */
async function aLimitedAgent(): Promise<{ name: string; client: Client }> {
  const name = `limited-reader-${++agents}`;
  const { key } = await createAgent(ctx, { workspace: 'default', name });
  await grant(ctx, { workspace: 'default', agent: name, connection: 'docs', scope: 'reads' });
  await admin('PUT', '/workspaces/default/limits', { agent: name, perMinute: 1, burst: 1 });
  return { name, client: await mcpClient(gateway.url, key) };
}

/** The JSON-RPC error a refused request is answered with. */
interface RpcRefusal {
  code?: number;
  message?: string;
  data?: Record<string, unknown>;
}

async function refusalOf(request: Promise<unknown>): Promise<RpcRefusal> {
  const error = await request.then(
    () => undefined,
    (e: unknown) => e as RpcRefusal,
  );
  expect(error, 'refused').toBeDefined();
  return error ?? {};
}

describe('a rate-limited agent', () => {
  it.each([
    [
      'prompts/get docs__greet',
      (client: Client) => client.getPrompt({ name: 'docs__greet', arguments: { who: 'Ada' } }),
    ],
    [
      'resources/read docs+memo://welcome',
      (client: Client) => client.readResource({ uri: 'docs+memo://welcome' }),
    ],
  ] as const)(
    'is refused %s past its burst, rate_limited with the wait, audited once',
    async (action, request) => {
      const { name, client } = await aLimitedAgent();
      try {
        await request(client);
        const refusal = await refusalOf(request(client));
        // rate_limited as a JSON-RPC server error: its explanation, the wait in its data.
        expect(refusal.code).toBe(-32000);
        expect(refusal.message).toContain(`portcullis limits set --agent ${name} --per-minute <n>`);
        expect(refusal.data).toMatchObject({ limit: 'agent', perMinute: 1, burst: 1 });
        expect(refusal.data?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        const events = await admin(
          'GET',
          `/audit?workspace=default&agent=${name}&reason=rate_limited`,
        );
        expect(events.body).toHaveLength(1);
        expect(events.body[0]).toMatchObject({ action, decision: 'denied', outcome: null });
        expect(events.body[0].connectionId).toEqual(expect.any(String));
      } finally {
        await client.close();
      }
    },
  );
});
