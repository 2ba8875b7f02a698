/**
 * The tasks extension as the endpoint serves it, over the suite's tasks
 * fixtures (test/support/mcp/task-fixtures.ts, recorded tasks in a store, in
 * the everything backend):
 * the conformance suite's tasks scenarios at 2026-07-28, the declaration on
 * both wires, a task on a 2025-11-25 session, and ids bound to their caller.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  runScenarios,
  TASK_SCENARIOS,
} from '../../../../../scripts/conformance/run-conformance.ts';
import { EverythingBackend } from '../../../../support/mcp/everything-backend.ts';
import { FIXTURE_AGENTS, type FixtureAgent } from '../../../../support/mcp/fixture-backend.ts';
import { type McpTestServer, startMcpServer } from '../../../../support/mcp/fixture-server.ts';
import { ACCEPT_BOTH, modern, modernMeta, raw, rpc } from '../../../../support/mcp/raw-http.ts';

const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { elicitation: {}, extensions: { [TASKS]: {} } };

let server: McpTestServer<EverythingBackend>;

beforeAll(async () => {
  server = await startMcpServer(new EverythingBackend());
});

afterAll(async () => {
  await server?.close();
  await server?.backend.tasks.close();
});

/** One modern request of `agent`, its client declaring `capabilities`: the reply's JSON. */
async function ask(
  method: string,
  params: Record<string, unknown>,
  agent: FixtureAgent = 'alice',
  capabilities: Record<string, unknown> = WITH_TASKS,
) {
  const { body, headers } = modern(method, params, {
    meta: modernMeta({ 'io.modelcontextprotocol/clientCapabilities': capabilities }),
  });
  return (await raw(server as never, { agent, body, headers })).json;
}

/** A 2025 session whose client declared `capabilities`: a request in it, answered. */
async function session(protocolVersion: string, capabilities: Record<string, unknown>) {
  const opened = await raw(server as never, {
    body: rpc('initialize', {
      protocolVersion,
      capabilities,
      clientInfo: { name: 'portcullis-test', version: '1.0.0' },
    }),
  });
  const id = opened.headers['mcp-session-id'] as string;
  await raw(server as never, {
    session: id,
    body: { jsonrpc: '2.0', method: 'notifications/initialized' },
  });
  return {
    initialize: opened.json,
    request: async (method: string, params: Record<string, unknown>) =>
      (
        await raw(server as never, {
          session: id,
          headers: { 'mcp-protocol-version': protocolVersion, accept: ACCEPT_BOTH },
          body: rpc(method, params),
        })
      ).json,
  };
}

describe('the tasks extension', () => {
  it('passes every check of the conformance suite’s tasks scenarios at 2026-07-28', async () => {
    const results = await runScenarios(
      { url: server.url, authorization: `Bearer ${FIXTURE_AGENTS.alice.key}` },
      TASK_SCENARIOS,
    );
    const failing = [...results].filter(([, counts]) => counts.failed + counts.warnings > 0);
    expect(failing).toEqual([]);
    expect([...results.keys()].sort()).toEqual([...TASK_SCENARIOS].sort());
    // Every scenario but the status notifications' (which the suite skips for now) checked something.
    for (const [scenario, counts] of results)
      if (scenario !== 'tasks-status-notifications') expect(counts.passed).toBeGreaterThan(1);
  }, 300_000);

  it('is declared in server/discover and to 2025-11-25 sessions, never as capabilities.tasks', async () => {
    const discovered = (await ask('server/discover', {})).result.capabilities;
    expect(discovered.extensions).toEqual({ [TASKS]: {} });
    expect(discovered.tasks).toBeUndefined();
    const current = (await session('2025-11-25', {})).initialize.result.capabilities;
    expect(current.extensions).toEqual({ [TASKS]: {} });
    expect(current.tasks).toBeUndefined();
    // 2025-06-18 has no extensions at all.
    const older = (await session('2025-06-18', {})).initialize.result.capabilities;
    expect(older.extensions).toBeUndefined();
  });

  it('serves a task to a 2025-11-25 session that declared the extension, and to no other', async () => {
    const declared = await session('2025-11-25', WITH_TASKS);
    const started = (
      await declared.request('tools/call', {
        name: 'slow_compute',
        arguments: { seconds: 0, label: 'legacy' },
      })
    ).result;
    expect(started).toMatchObject({ resultType: 'task', status: 'working' });
    let state = (await declared.request('tasks/get', { taskId: started.taskId })).result;
    while (state.status === 'working')
      state = (await declared.request('tasks/get', { taskId: started.taskId })).result;
    expect(state).toMatchObject({
      resultType: 'complete',
      status: 'completed',
      result: { content: [{ type: 'text', text: 'computed legacy in 0 s' }] },
    });

    const plain = await session('2025-11-25', {});
    const sync = (
      await plain.request('tools/call', {
        name: 'slow_compute',
        arguments: { seconds: 0, label: 'plain' },
      })
    ).result;
    expect(sync.taskId).toBeUndefined();
    expect(sync.content).toEqual([{ type: 'text', text: 'computed plain in 0 s' }]);
    const refused = await plain.request('tasks/get', { taskId: started.taskId });
    expect(refused.error.code).toBe(-32021);
    expect(refused.error.data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
    // A revision without extensions knows no tasks/* at all.
    const older = await session('2025-06-18', WITH_TASKS);
    expect((await older.request('tasks/get', { taskId: started.taskId })).error.code).toBe(-32601);
  });

  it("answers another agent's task id exactly as one that never existed", async () => {
    const started = (
      await ask('tools/call', {
        name: 'slow_compute',
        arguments: { seconds: 30, label: 'alice' },
      })
    ).result;
    const forged = `pct1.${Buffer.alloc(120, 1).toString('base64url')}`;
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const params = (taskId: string) =>
        method === 'tasks/update' ? { taskId, inputResponses: {} } : { taskId };
      const theirs = await ask(method, params(started.taskId), 'bob');
      const nobodys = await ask(method, params(forged), 'bob');
      expect(theirs.error).toEqual(nobodys.error);
      expect(theirs.error.code).toBe(-32602);
    }
    // Bob's cancel reached nothing: Alice's task works on, and is hers to cancel.
    expect((await ask('tasks/get', { taskId: started.taskId })).result.status).toBe('working');
    expect((await ask('tasks/cancel', { taskId: started.taskId })).result).toEqual({
      resultType: 'complete',
      _meta: expect.any(Object),
    });
    expect((await ask('tasks/get', { taskId: started.taskId })).result.status).toBe('cancelled');
  });

  it('names the task in Mcp-Name on the modern wire: a mismatch is refused (-32020)', async () => {
    const started = (
      await ask('tools/call', {
        name: 'slow_compute',
        arguments: { seconds: 30, label: 'routed' },
      })
    ).result;
    const { body, headers } = modern(
      'tasks/get',
      { taskId: started.taskId },
      {
        meta: modernMeta({ 'io.modelcontextprotocol/clientCapabilities': WITH_TASKS }),
        headers: { 'mcp-name': 'another-task' },
      },
    );
    const reply = await raw(server as never, { body, headers });
    expect(reply.status).toBe(400);
    expect(reply.json.error.code).toBe(-32020);
    await ask('tasks/cancel', { taskId: started.taskId });
  });
});
