/**
 * Calls held for approval on a remote MCP server (docs/approvals.md: "for
 * compiled providers and remote MCP servers alike"): a real SDK v2 server
 * (test/support/remote/upstream-servers.ts, on its stateless 2026-07-28 wire
 * and on 2025-11-25 sessions) connected by URL, its `delete_item` set to
 * `ask`, called by the SDK v2 client declaring the tasks extension on a
 * 2025-11-25 session of the gateway. Held, the task works and nothing
 * reaches the server; approved through the admin API, the server's tool
 * runs exactly once (the server counts its calls) and the task completes
 * with its result; denied in the console API, the task fails
 * `approval_denied` and the tool never runs; expired, `approval_expired`,
 * never run. The approval is of its
 * arguments: the same call with other arguments is held anew, not run.
 * On a server that answers with tasks, the approved call declares the
 * client's tasks and the held task follows the server's task: its polls,
 * what it asks and the answers to it go there, its result the held task's.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { expireApprovals } from '../../../../../runtime/core/pipeline/held-calls.ts';
import { APPROVALS, heldApproval, type Json } from '../../../../support/approvals/approvals-api.ts';
import {
  APPROVER,
  holdRemoteTools,
  type RemoteHeldGateway,
  startRemoteHeldGateway,
} from '../../../../support/approvals/held-remote.ts';
import { consoleClient } from '../../../../support/console.ts';
import { TASKS_CAPABILITIES } from '../../../../support/mcp/raw-http.ts';
import { startTaskUpstream, type TaskUpstream } from '../../../../support/remote/task-upstream.ts';
import {
  startUpstream,
  type Upstream,
  type UpstreamKind,
} from '../../../../support/remote/upstream-servers.ts';

const KINDS: UpstreamKind[] = ['modern', 'stateful'];

let held: RemoteHeldGateway;
let gateway: RemoteHeldGateway['gateway'];
let admin: RemoteHeldGateway['admin'];
let key: string;
const upstreams = new Map<UpstreamKind, Upstream>();
/** Servers that answer a call with a task of their own when its client declares the extension. */
const taskUpstreams = new Map<UpstreamKind, TaskUpstream>();

beforeAll(async () => {
  held = await startRemoteHeldGateway('0');
  ({ gateway, admin, key } = held);
  for (const kind of KINDS) {
    const upstream = await startUpstream(kind);
    upstreams.set(kind, upstream);
    await holdRemoteTools(held.ctx, {
      url: upstream.url,
      connection: `held-${kind}`,
      actions: ['delete_item'],
    });

    const tasking = await startTaskUpstream(kind, { secrets: [] });
    taskUpstreams.set(kind, tasking);
    await holdRemoteTools(held.ctx, {
      url: tasking.url,
      connection: `held-tasks-${kind}`,
      actions: ['report', 'confirm_report'],
    });
  }
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  for (const upstream of [...upstreams.values(), ...taskUpstreams.values()]) await upstream.close();
});

/** The SDK v2 client on a 2025-11-25 session of `/mcp`, declaring the tasks extension. */
async function taskClient(): Promise<Client> {
  const client = new Client({ name: 'held-remote', version: '1.0.0' }, {
    capabilities: TASKS_CAPABILITIES,
  } as never);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  expect(client.getProtocolEra()).toBe('legacy');
  return client;
}

const Any = z.object({}).passthrough();
/** One request in the SDK v2 client's session (tasks/* have no typed method in the SDK). */
function request(client: Client, method: string, params: Json): Promise<Json> {
  return client.request({ method, params } as never, Any as never) as Promise<Json>;
}

/** Polls the task until it leaves `working` (the test's timeout bounds it). */
async function settled(client: Client, taskId: string): Promise<Json> {
  for (;;) {
    const state = await request(client, 'tasks/get', { taskId });
    if (state.status !== 'working') return state;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(KINDS)(
  'a held call to a %s remote SDK server, from an SDK v2 client with tasks',
  (kind) => {
    const connection = `held-${kind}`;
    const tool = `${connection}__delete_item`;
    const deletes = () => upstreams.get(kind)!.calls.filter((call) => call.tool === 'delete_item');

    it('works while held, then runs on the server exactly once when approved: the task completes with its result', async () => {
      const client = await taskClient();
      try {
        const before = deletes().length;
        const args = { id: `approved-${kind}` };
        const started = await request(client, 'tools/call', { name: tool, arguments: args });
        expect(started).toMatchObject({ status: 'working' });
        expect(started.taskId).toMatch(/^pct1\./);
        const approval = await heldApproval(admin, args);
        expect(approval).toMatchObject({
          state: 'pending',
          agent: 'remover',
          connection,
          action: tool,
          task: true,
          server: { verified: false },
        });
        expect(await request(client, 'tasks/get', { taskId: started.taskId })).toMatchObject({
          status: 'working',
        });
        expect(deletes().length).toBe(before);

        // The same call with other arguments is not covered: held under its own approval.
        const other = await request(client, 'tools/call', {
          name: tool,
          arguments: { id: `other-${kind}` },
        });
        expect(other).toMatchObject({ status: 'working' });
        const otherApproval = await heldApproval(admin, { id: `other-${kind}` });
        expect(otherApproval.id).not.toBe(approval.id);
        expect(otherApproval.argumentsHash).not.toBe(approval.argumentsHash);

        const approved = await admin('POST', `${APPROVALS}/${approval.id}/approve`, {});
        expect(approved.status).toBe(200);
        const done = await settled(client, started.taskId);
        expect(done).toMatchObject({
          status: 'completed',
          result: { content: [{ type: 'text', text: `deleted approved-${kind}` }] },
        });
        expect(done.result.isError).toBeFalsy();
        // Polled again: the same result, the tool not called twice.
        expect(await request(client, 'tasks/get', { taskId: started.taskId })).toMatchObject({
          status: 'completed',
        });
        expect(deletes().length).toBe(before + 1);
        expect((await admin('GET', `${APPROVALS}/${approval.id}`)).body.state).toBe('executed');
        // Used once: approving it again is a conflict.
        expect((await admin('POST', `${APPROVALS}/${approval.id}/approve`, {})).status).toBe(409);

        // The other arguments' call still waits for its own approver, and never ran.
        expect(await request(client, 'tasks/get', { taskId: other.taskId })).toMatchObject({
          status: 'working',
        });
        expect((await admin('GET', `${APPROVALS}/${otherApproval.id}`)).body.state).toBe('pending');
        expect(deletes().length).toBe(before + 1);

        const events = (await gateway.running.gateway.store.audit.query({ limit: 500 })).filter(
          (e) => e.subject === `approval:${approval.id}`,
        );
        const ran = events.filter(
          (e) => e.action === tool && e.decision === 'allowed' && e.upstreamHost !== null,
        );
        expect(ran).toHaveLength(1);
        expect(ran[0]?.upstreamHost).toBe(new URL(upstreams.get(kind)!.url).host);
        expect(events.map((e) => e.action)).toEqual(expect.arrayContaining(['approval.approve']));
      } finally {
        await client.close();
      }
    });

    it('fails approval_denied when denied in the console, the tool never run', async () => {
      const client = await taskClient();
      try {
        const before = deletes().length;
        const args = { id: `denied-${kind}` };
        const started = await request(client, 'tools/call', { name: tool, arguments: args });
        expect(started).toMatchObject({ status: 'working' });
        const approval = await heldApproval(admin, args);
        const oscar = consoleClient(gateway.url);
        expect((await oscar.signIn(APPROVER)).status).toBe(200);
        const denied = await oscar.call('POST', `/approvals/${approval.id}/deny`, {
          reason: 'not this item',
        });
        expect(denied.status).toBe(200);
        expect(denied.body).toMatchObject({ state: 'denied', reason: 'not this item' });
        const failed = await settled(client, started.taskId);
        expect(failed).toMatchObject({
          status: 'failed',
          error: { data: { error: { code: 'approval_denied' } } },
        });
        expect(failed.error.message).toContain('not this item');
        // Approving after the denial is a conflict, and polling again runs nothing.
        expect((await admin('POST', `${APPROVALS}/${approval.id}/approve`, {})).status).toBe(409);
        expect((await request(client, 'tasks/get', { taskId: started.taskId })).status).toBe(
          'failed',
        );
        expect(deletes().length).toBe(before);
      } finally {
        await client.close();
      }
    });

    it('fails approval_expired when no one decides in time, the tool never run', async () => {
      const client = await taskClient();
      try {
        const before = deletes().length;
        const args = { id: `expired-${kind}` };
        const started = await request(client, 'tools/call', { name: tool, arguments: args });
        const approval = await heldApproval(admin, args);
        // The sweep each replica runs every minute, at a moment past the approval's time.
        const store = gateway.running.gateway.store;
        const late = new Date(Date.parse(approval.expiresAt) + 1);
        expect(await expireApprovals(store, late)).toBeGreaterThanOrEqual(1);
        expect((await admin('POST', `${APPROVALS}/${approval.id}/approve`, {})).status).toBe(409);
        const failed = await settled(client, started.taskId);
        expect(failed).toMatchObject({
          status: 'failed',
          error: { data: { error: { code: 'approval_expired' } } },
        });
        expect(deletes().length).toBe(before);
        const expired = (await store.audit.query({ limit: 500 })).filter(
          (e) => e.action === 'approval.expire' && e.subject === `approval:${approval.id}`,
        );
        expect(expired).toHaveLength(1);
      } finally {
        await client.close();
      }
    });
  },
);

describe.each(KINDS)('a held call to a %s remote server that answers with tasks', (kind) => {
  const connection = `held-tasks-${kind}`;

  it('runs once approved, declaring the client’s tasks: the held task follows the server’s task to its result', async () => {
    const upstream = taskUpstreams.get(kind)!;
    const client = await taskClient();
    try {
      const args = { topic: `approved-${kind}` };
      const started = await request(client, 'tools/call', {
        name: `${connection}__report`,
        arguments: args,
      });
      expect(started).toMatchObject({ status: 'working' });
      const approval = await heldApproval(admin, args);
      expect(upstream.seen.filter((s) => s.method === 'tools/call')).toEqual([]);
      expect((await admin('POST', `${APPROVALS}/${approval.id}/approve`, {})).status).toBe(200);
      // One call reached the server, declaring the tasks the client declared: it started one.
      while (upstream.started.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(upstream.seen.filter((s) => s.method === 'tools/call')).toEqual([
        { method: 'tools/call', declared: true },
      ]);
      const [upstreamId] = upstream.started;
      // The held task's polls are the server's task's now, under the id the client holds.
      const working = await request(client, 'tasks/get', { taskId: started.taskId });
      expect(working).toMatchObject({ taskId: started.taskId, status: 'working' });
      expect(upstream.seen).toContainEqual(
        expect.objectContaining({ method: 'tasks/get', taskId: upstreamId }),
      );
      upstream.finish(upstreamId!);
      expect(await settled(client, started.taskId)).toMatchObject({
        taskId: started.taskId,
        status: 'completed',
        result: {
          content: [{ type: 'text', text: expect.stringContaining(`report on approved-${kind}`) }],
        },
      });
      expect(upstream.started).toEqual([upstreamId]);
    } finally {
      await client.close();
    }
  });

  it('relays what the server’s task asks, once approved: tasks/update answers it there', async () => {
    const upstream = taskUpstreams.get(kind)!;
    const client = await taskClient();
    try {
      const args = { topic: `asked-${kind}` };
      const started = await request(client, 'tools/call', {
        name: `${connection}__confirm_report`,
        arguments: args,
      });
      const approval = await heldApproval(admin, args);
      const before = upstream.started.length;
      expect((await admin('POST', `${APPROVALS}/${approval.id}/approve`, {})).status).toBe(200);
      const asking = await settled(client, started.taskId);
      expect(asking).toMatchObject({ status: 'input_required', inputRequests: { confirm: {} } });
      const upstreamId = upstream.started[before]!;
      await request(client, 'tasks/update', {
        taskId: started.taskId,
        inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
      });
      expect(upstream.answers.get(upstreamId)).toBeDefined();
      const done = await request(client, 'tasks/get', { taskId: started.taskId });
      expect(done).toMatchObject({ status: 'completed' });
      expect(done.result.content[0].text).toContain(`confirmed asked-${kind}`);
    } finally {
      await client.close();
    }
  });
});
