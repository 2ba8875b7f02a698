/**
 * A remote server's task started on one replica and polled, cancelled and
 * refused on another: two gateway replicas share one PostgreSQL store, one
 * Redis and one master key, in front of the SDK v2 task server of
 * remote-tasks.test.ts on both its wires. The task id replica A handed out
 * opens on replica B for the same agent (B reaches the server in an upstream
 * session of its own where the server has sessions), each step audited; on
 * B another agent's poll is refused exactly as an id that never existed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeActions } from '../../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.ts';
import { modernAsk } from '../../../../support/mcp/raw-http.ts';
import { testSchemas } from '../../../../support/postgres.ts';
import { TEST_REDIS_URL } from '../../../../support/redis.ts';
import {
  startTaskUpstream,
  type TaskUpstream,
  type TaskUpstreamKind,
} from '../../../../support/remote/task-upstream.ts';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const KINDS: TaskUpstreamKind[] = ['modern', 'stateful'];
const environment = { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1', REDIS_URL: TEST_REDIS_URL };
const schemas = testSchemas();
let a: TestGateway;
let b: TestGateway;
const upstreams = new Map<TaskUpstreamKind, TaskUpstream>();
const keys: Record<string, string> = {};

beforeAll(async () => {
  const databaseUrl = schemas.urlFor(await schemas.create());
  a = await startTestGateway({ databaseUrl, environment });
  // The same master key: B opens the ids A sealed.
  b = await startTestGateway({ databaseUrl, environment, dataDir: a.dataDir });
  const ctx = a.running.gateway.operator('test');
  const workspace = 'default';
  for (const agent of ['poller', 'intruder'])
    keys[agent] = (await createAgent(ctx, { workspace, name: agent })).key;
  for (const kind of KINDS) {
    const upstream = await startTaskUpstream(kind, { secrets: [] });
    upstreams.set(kind, upstream);
    const connection = `tasks-${kind}`;
    await connectUrl(ctx, { workspace, url: upstream.url, name: connection });
    await changeActions(ctx, 'review', { workspace, connection, all: true });
    await changeActions(ctx, 'enable', { workspace, connection, all: true });
    for (const agent of ['poller', 'intruder'])
      await grant(ctx, { workspace, agent, connection, scope: 'all' });
  }
}, 60_000);
afterAll(async () => {
  await a?.close();
  await b?.close();
  for (const upstream of upstreams.values()) await upstream.close();
  await schemas.dropAll();
});

const ask = (
  replica: TestGateway,
  method: string,
  params: Record<string, unknown>,
  agent = 'poller',
) => modernAsk(`${replica.url}/mcp`, keys[agent]!, method, params, TASKS);

describe.each(KINDS)('a task of a %s server across replicas', (kind) => {
  const tool = `tasks-${kind}__report`;
  const upstream = () => upstreams.get(kind)!;

  it('started on A is polled to its result on B, and is not found there by another agent', async () => {
    const started = (await ask(a, 'tools/call', { name: tool, arguments: { topic: 'on B' } }))
      .result!;
    expect(started).toMatchObject({ resultType: 'task', status: 'working' });
    const theirs = upstream().started.at(-1)!;
    expect((await ask(b, 'tasks/get', { taskId: started.taskId })).result?.status).toBe('working');
    expect(upstream().seen.at(-1)).toEqual({ method: 'tasks/get', taskId: theirs, declared: true });

    const before = upstream().seen.length;
    const intruder = await ask(b, 'tasks/get', { taskId: started.taskId }, 'intruder');
    const never = await ask(b, 'tasks/get', { taskId: `${started.taskId}x` }, 'intruder');
    expect(intruder.error).toMatchObject({ code: -32602 });
    expect(intruder.error).toEqual(never.error);
    expect(upstream().seen.length).toBe(before);

    upstream().finish(theirs);
    expect((await ask(b, 'tasks/get', { taskId: started.taskId })).result).toMatchObject({
      status: 'completed',
      result: { content: [{ text: expect.stringContaining('report on on B') }] },
    });
    const polls = await b.running.gateway.store.audit.query({ action: `tasks/get ${tool}` });
    expect(polls.filter((event) => event.outcome === 'ok').length).toBeGreaterThanOrEqual(2);
  });

  it('started on A is cancelled on B: the server is told, and A sees it cancelled', async () => {
    const started = (await ask(a, 'tools/call', { name: tool, arguments: { topic: 'cancel' } }))
      .result!;
    const theirs = upstream().started.at(-1)!;
    expect((await ask(b, 'tasks/cancel', { taskId: started.taskId })).error).toBeUndefined();
    expect(upstream().cancelled).toContain(theirs);
    expect((await ask(a, 'tasks/get', { taskId: started.taskId })).result?.status).toBe(
      'cancelled',
    );
  });
});
