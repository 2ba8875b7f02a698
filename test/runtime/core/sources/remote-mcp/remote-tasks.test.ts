/**
 * Remote tasks through the gateway: a real SDK v2 server that answers calls
 * with tasks (test/support/remote/task-upstream.ts), on its stateless
 * 2026-07-28 wire and on 2025-11-25 sessions, reached on `/mcp` and
 * `/mcp/c/<connection>` by a raw 2026-07-28 client (the SDK v2 client 2.4.0
 * refuses `resultType: "task"` on that wire) and by the SDK v2 client on a
 * 2025-11-25 session. The agent gets an id of ours, bound to it; polls,
 * answers and cancels are forwarded as the call was, governed and audited,
 * and the final result is redacted and checked like a call's. A gateway
 * restarted on the same data loses no task.
 */
import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { changeActions } from '../../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.ts';
import { modernTaskRequest } from '../../../../support/mcp/raw-http.ts';
import {
  startTaskUpstream,
  type TaskUpstream,
  type TaskUpstreamKind,
} from '../../../../support/remote/task-upstream.ts';

const TASKS = { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } };
/** Each connection's key: every server echoes both, and neither may reach the agent. */
const SECRETS = {
  modern: `sk_live_${randomBytes(12).toString('hex')}`,
  stateful: `sk_live_${randomBytes(12).toString('hex')}`,
};
const KINDS: TaskUpstreamKind[] = ['modern', 'stateful'];

let gateway: TestGateway;
let ctx: OperatorContext;
const upstreams = new Map<TaskUpstreamKind, TaskUpstream>();
const keys: Record<string, string> = {};

async function connect(kind: TaskUpstreamKind): Promise<void> {
  const upstream = await startTaskUpstream(kind, { secrets: Object.values(SECRETS) });
  upstreams.set(kind, upstream);
  const workspace = 'default';
  const connection = `tasks-${kind}`;
  await connectUrl(ctx, { workspace, url: upstream.url, name: connection, token: SECRETS[kind] });
  await changeActions(ctx, 'review', { workspace, connection, all: true });
  await changeActions(ctx, 'enable', { workspace, connection, all: true });
  for (const agent of ['poller', 'intruder'])
    await grant(ctx, { workspace, agent, connection, scope: 'all' });
}

beforeAll(async () => {
  gateway = await startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } });
  ctx = gateway.running.gateway.operator('test');
  for (const agent of ['poller', 'intruder'])
    keys[agent] = (await createAgent(ctx, { workspace: 'default', name: agent })).key;
  for (const kind of KINDS) await connect(kind);
});

afterAll(async () => {
  await gateway?.close();
  for (const upstream of upstreams.values()) await upstream.close();
});

// biome-ignore lint/suspicious/noExplicitAny: tests read the JSON-RPC reply field by field
type Json = Record<string, any>;
type Reply = { result?: Json; error?: Json };

/** A raw 2026-07-28 request of `agent` on `path` (its client declaring `capabilities`). */
function ask(
  path: string,
  method: string,
  params: Record<string, unknown>,
  agent = 'poller',
  capabilities: Record<string, unknown> = TASKS,
): Promise<Reply> {
  return modernTaskRequest(
    gateway.url,
    keys[agent]!,
    method,
    params,
    path,
    capabilities,
  ) as Promise<Reply>;
}

/** The SDK v2 client on a 2025-11-25 session of `path`, declaring the extension. */
async function sessionClient(path: string): Promise<Client> {
  const client = new Client({ name: 'agent-2025', version: '1.0.0' }, {
    capabilities: TASKS,
  } as never);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`), {
      requestInit: { headers: { Authorization: `Bearer ${keys.poller}` } },
    }),
  );
  expect(client.getProtocolEra()).toBe('legacy');
  return client;
}

const Any = z.object({}).passthrough();
/** One request in the SDK v2 client's session (tasks/* have no typed method in the SDK). */
function sdkRequest(client: Client, method: string, params: Record<string, unknown>) {
  return client.request({ method, params } as never, Any as never) as Promise<Json>;
}

describe.each(KINDS)('a task of a %s remote server', (kind) => {
  const connection = `tasks-${kind}`;
  const upstream = () => upstreams.get(kind)!;

  it('is the agent’s under an id of ours: polled to its result, redacted, each step audited', async () => {
    const started = (
      await ask('/mcp', 'tools/call', {
        name: `${connection}__report`,
        arguments: { topic: 'sales' },
      })
    ).result!;
    const theirs = upstream().started.at(-1)!;
    expect(started).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: 50 });
    expect(started.taskId).toMatch(/^pct1\./);
    expect(started.taskId).not.toContain(theirs);
    // What the extension does not have stays behind.
    expect(started.requestState).toBeUndefined();
    expect(started.ttl).toBeUndefined();
    expect(upstream().seen.at(-1)).toEqual({ method: 'tools/call', declared: true });

    expect((await ask('/mcp', 'tasks/get', { taskId: started.taskId })).result).toMatchObject({
      taskId: started.taskId,
      status: 'working',
      resultType: 'complete',
    });
    expect(upstream().seen.at(-1)).toEqual({ method: 'tasks/get', taskId: theirs, declared: true });
    upstream().finish(theirs);
    const done = (await ask('/mcp', 'tasks/get', { taskId: started.taskId })).result!;
    expect(done).toMatchObject({ status: 'completed', taskId: started.taskId });
    const text = done.result.content[0].text as string;
    expect(text).toContain('report on sales');
    // Its own key and the other connection's (the workspace's secrets), as a call's result.
    for (const secret of Object.values(SECRETS)) expect(JSON.stringify(done)).not.toContain(secret);
    expect(text).toContain('[redacted] and [redacted]');

    const events = await gateway.running.gateway.store.audit.query({ actorId: undefined });
    const call = events.find(
      (event) => event.action === `${connection}__report` && event.subject?.startsWith('task:'),
    )!;
    expect(call).toMatchObject({ decision: 'allowed', outcome: 'ok' });
    const polls = events.filter(
      (event) =>
        event.action === `tasks/get ${connection}__report` && event.subject === call.subject,
    );
    expect(polls.length).toBeGreaterThanOrEqual(2);
    for (const poll of polls) expect(poll).toMatchObject({ decision: 'allowed', outcome: 'ok' });
    expect(JSON.stringify(events)).not.toContain(started.taskId);
  });

  it('takes its input and its cancellation on a 2025-11-25 session of /mcp/c/<connection>', async () => {
    const client = await sessionClient(`/mcp/c/${connection}`);
    try {
      const started = await sdkRequest(client, 'tools/call', {
        name: 'confirm_report',
        arguments: { topic: 'costs' },
      });
      const theirs = upstream().started.at(-1)!;
      const asking = await sdkRequest(client, 'tasks/get', { taskId: started.taskId });
      expect(asking).toMatchObject({
        status: 'input_required',
        inputRequests: { confirm: { method: 'elicitation/create' } },
      });
      await sdkRequest(client, 'tasks/update', {
        taskId: started.taskId,
        inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
      });
      expect(upstream().answers.get(theirs)).toEqual({
        confirm: { action: 'accept', content: { ok: true } },
      });
      expect(await sdkRequest(client, 'tasks/get', { taskId: started.taskId })).toMatchObject({
        status: 'completed',
        result: { content: [{ type: 'text', text: expect.stringContaining('confirmed costs') }] },
      });

      const long = await sdkRequest(client, 'tools/call', {
        name: 'report',
        arguments: { topic: 'to cancel' },
      });
      const longTheirs = upstream().started.at(-1)!;
      await sdkRequest(client, 'tasks/cancel', { taskId: long.taskId });
      expect(upstream().cancelled).toContain(longTheirs);
      expect((await sdkRequest(client, 'tasks/get', { taskId: long.taskId })).status).toBe(
        'cancelled',
      );
      // The task belongs to this endpoint: /mcp does not know it.
      expect((await ask('/mcp', 'tasks/get', { taskId: long.taskId })).error?.code).toBe(-32602);
    } finally {
      await client.close();
    }
  });

  it('is not found by another agent, exactly as an id that never existed, and never reaches the server', async () => {
    const started = (
      await ask(`/mcp/c/${connection}`, 'tools/call', {
        name: 'report',
        arguments: { topic: 'private' },
      })
    ).result!;
    const before = upstream().seen.length;
    const forged = `pct1.${randomBytes(160).toString('base64url')}`;
    const refusals = [
      await ask(`/mcp/c/${connection}`, 'tasks/get', { taskId: started.taskId }, 'intruder'),
      await ask(`/mcp/c/${connection}`, 'tasks/cancel', { taskId: started.taskId }, 'intruder'),
      await ask(`/mcp/c/${connection}`, 'tasks/get', { taskId: forged }, 'intruder'),
    ];
    for (const refusal of refusals) expect(refusal.error).toEqual(refusals[0]!.error);
    expect(refusals[0]!.error).toMatchObject({ code: -32602 });
    expect(upstream().seen.length).toBe(before);
    expect(
      (await ask(`/mcp/c/${connection}`, 'tasks/get', { taskId: started.taskId })).result?.status,
    ).toBe('working');
  });

  it('refuses a final result that is no tool result, as a call’s would be', async () => {
    const started = (
      await ask('/mcp', 'tools/call', {
        name: `${connection}__broken_report`,
        arguments: {},
      })
    ).result!;
    upstream().finish(upstream().started.at(-1)!);
    const refused = await ask('/mcp', 'tasks/get', { taskId: started.taskId });
    expect(refused.error?.data).toMatchObject({ error: { code: 'mcp_remote_malformed_response' } });
  });

  it('is not started for a client that did not declare the extension, nor taken from a server that starts one anyway', async () => {
    const sync = (
      await ask(
        '/mcp',
        'tools/call',
        {
          name: `${connection}__report`,
          arguments: { topic: 'now' },
        },
        'poller',
        {},
      )
    ).result!;
    expect(sync.taskId).toBeUndefined();
    expect(sync.content).toEqual([{ type: 'text', text: 'report on now, at once' }]);
    expect(upstream().seen.at(-1)).toEqual({ method: 'tools/call', declared: false });
    const rogue = (
      await ask(
        '/mcp',
        'tools/call',
        {
          name: `${connection}__rogue`,
          arguments: {},
        },
        'poller',
        {},
      )
    ).result!;
    expect(rogue.isError).toBe(true);
    expect(rogue.structuredContent.error.code).toBe('mcp_remote_malformed_response');
  });
});

describe('a gateway restarted on the same data', () => {
  it.each(KINDS)('answers for the tasks of a %s server it handed out before', async (kind) => {
    const started = (
      await ask('/mcp', 'tools/call', {
        name: `tasks-${kind}__report`,
        arguments: { topic: 'across a restart' },
      })
    ).result!;
    const upstream = upstreams.get(kind)!;
    const theirs = upstream.started.at(-1)!;
    const { dataDir } = gateway;
    await gateway.close();
    gateway = await startTestGateway({
      dataDir,
      environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' },
    });
    // A new process: a new upstream session where the server has sessions, the same task.
    expect((await ask('/mcp', 'tasks/get', { taskId: started.taskId })).result?.status).toBe(
      'working',
    );
    expect(upstream.seen.at(-1)).toEqual({ method: 'tasks/get', taskId: theirs, declared: true });
    upstream.finish(theirs);
    expect((await ask('/mcp', 'tasks/get', { taskId: started.taskId })).result).toMatchObject({
      status: 'completed',
      result: { content: [{ text: expect.stringContaining('across a restart') }] },
    });
  });
});
