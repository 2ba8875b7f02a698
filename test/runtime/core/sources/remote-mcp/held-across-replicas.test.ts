/**
 * A question held on one replica, answered on another: two gateway replicas
 * share one PostgreSQL store and one Redis, in front of a real SDK v2
 * stateful (2025-11-25) upstream whose tools ask mid-call. A raw 2026-07-28
 * agent (its retries are stateless, so a load balancer may send them
 * anywhere) calls on replica A, gets `input_required`, and brings its answer
 * to replica B: B finds in the shared state that A holds the exchange, sends
 * the answer there, and A's next step (the result, or the next question, still
 * held on A) comes back through B, the progress A's round reports before it.
 * An answer whose exchange no replica holds
 * any more is `mcp_remote_input_expired` at once, and each round is audited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.ts';
import { modernToolCall, modernToolExchange } from '../../../../support/mcp/raw-http.ts';
import { testSchemas } from '../../../../support/postgres.ts';
import { TEST_REDIS_URL } from '../../../../support/redis.ts';
import { connectReviewed } from '../../../../support/remote/reviewed-connection.ts';
import { startUpstream, type Upstream } from '../../../../support/remote/upstream-servers.ts';

const environment = {
  PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
  REDIS_URL: TEST_REDIS_URL,
};
const schemas = testSchemas();
let a: TestGateway;
let b: TestGateway;
let upstream: Upstream;
let ctx: OperatorContext;
let key: string;
/** The held-exchange records replica A wrote in the shared state, in order. */
const recorded: string[] = [];

beforeAll(async () => {
  const databaseUrl = schemas.urlFor(await schemas.create());
  upstream = await startUpstream('stateful', { askingTools: true });
  a = await startTestGateway({ databaseUrl, environment });
  // The same master key: B opens the request state A sealed.
  b = await startTestGateway({ databaseUrl, environment, dataDir: a.dataDir });
  ctx = a.running.gateway.operator('test');
  ({ key } = await createAgent(ctx, { workspace: 'default', name: 'asked' }));
  await connectReviewed(ctx, { url: upstream.url, name: 'ask' }, 'asked');
  const state = a.running.gateway.state;
  const set = state.set.bind(state);
  state.set = (stateKey, value, ttlMs) => {
    if (stateKey.startsWith('held-exchange:')) recorded.push(stateKey);
    return set(stateKey, value, ttlMs);
  };
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await upstream?.close();
  await schemas.dropAll();
});

/** One raw 2026-07-28 tools/call of `ask__<tool>` on a replica. */
function call(
  replica: TestGateway,
  tool: string,
  extra: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  return modernToolCall(`${replica.url}/mcp`, key, `ask__${tool}`, extra);
}

/** The retry that answers `question`'s one input request with `content`. */
function answering(question: Record<string, unknown>, content: Record<string, unknown>) {
  expect(question.resultType).toBe('input_required');
  const [questionKey] = Object.keys(question.inputRequests as object);
  return {
    requestState: question.requestState,
    inputResponses: { [questionKey!]: { action: 'accept', content } },
  };
}

function textOf(result: Record<string, unknown>): string {
  const [first] = (result.content ?? []) as { text?: string }[];
  return first?.text ?? '';
}

function codeOf(result: Record<string, unknown>): string | undefined {
  return (result.structuredContent as { error?: { code?: string } } | undefined)?.error?.code;
}

describe('a question asked on replica A, answered on replica B', () => {
  it('goes on at A, and B gives the agent the result', async () => {
    const question = await call(a, 'ask_name');
    const answer = answering(question, { name: 'Eve' });
    const result = await call(b, 'ask_name', answer);
    expect(codeOf(result)).toBeUndefined();
    expect(textOf(result)).toBe('Hello, Eve!');
    // Taken at A, the question waits nowhere: brought again to either replica, it is expired.
    expect(codeOf(await call(b, 'ask_name', answer))).toBe('mcp_remote_input_expired');
    expect(codeOf(await call(a, 'ask_name', answer))).toBe('mcp_remote_input_expired');
  });

  /** Asks `ask_two` at A and answers both questions at B. */
  async function twoQuestions() {
    const first = await call(a, 'ask_two');
    const second = await call(b, 'ask_two', answering(first, { name: 'Eve' }));
    expect(JSON.stringify(second.inputRequests)).toContain('What is your colour?');
    return call(b, 'ask_two', answering(second, { colour: 'blue' }));
  }

  it('goes through two questions, the second held on A too', async () => {
    expect(textOf(await twoQuestions())).toBe('you like blue');
  });

  it("brings the progress A's round reports to the agent's reply stream at B, before the result", async () => {
    const question = await call(a, 'ask_then_count');
    const { result, notifications } = await modernToolExchange(
      `${b.url}/mcp`,
      key,
      'ask__ask_then_count',
      answering(question, { name: 'Eve' }),
      'agent-progress',
    );
    expect(textOf(result)).toBe('Counted for Eve');
    expect(
      notifications.map((n) => [n.method, (n.params as { progress?: number }).progress]),
    ).toEqual([
      ['notifications/progress', 1],
      ['notifications/progress', 2],
    ]);
    expect(
      notifications.map((n) => (n.params as { progressToken?: string }).progressToken),
    ).toEqual(['agent-progress', 'agent-progress']);
  });

  it('is expired at once when no replica holds the exchange any more', async () => {
    recorded.length = 0;
    const question = await call(a, 'ask_name');
    expect(recorded).toHaveLength(1);
    // What A's hold running out does to the shared state: its record is gone.
    await b.running.gateway.state.delete(recorded[0]!);
    const result = await call(b, 'ask_name', answering(question, { name: 'Eve' }));
    expect(codeOf(result)).toBe('mcp_remote_input_expired');
  });

  it('audits each round', async () => {
    const audited = async () => ctx.store.audit.query({ action: 'ask__ask_two', limit: 50 });
    const before = (await audited()).length;
    await twoQuestions();
    // Newest first: the rounds of this call lead the list.
    const after = await audited();
    const events = after.slice(0, after.length - before);
    expect(events.map((event) => [event.decision, event.outcome])).toEqual([
      ['allowed', 'ok'],
      ['allowed', 'ok'],
      ['allowed', 'ok'],
    ]);
  });
});
