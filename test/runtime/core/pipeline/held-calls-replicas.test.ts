/**
 * Calls held for approval across replicas: four gateway processes (two of
 * them for the kill tests) sharing PostgreSQL and Redis behind nginx, Prism
 * as the provider. SDK 1.x clients (no tasks) wait on their open request: a
 * call held on one replica is approved through nginx (whichever replica it
 * reaches) and runs once, the waiting request given its result; the replica
 * holding a wait killed with SIGKILL, the approval is not lost: approved on
 * the survivor it runs there, once, and the agent's call again gets its
 * result. A client that takes tasks (2026-07-28): its call held on one
 * replica runs when it is approved on another, before any `tasks/get`, once,
 * and the poll through nginx reads its result; the replica that answered the
 * task killed with SIGKILL, approving on a survivor runs it there, once.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVALS, heldApproval } from '../../../support/approvals/approvals-api.ts';
import {
  HELD_ACTION as ACTION,
  holdUnikraftAction,
} from '../../../support/approvals/held-unikraft.ts';
import { adminClient, callTool, mcpClient } from '../../../support/gateway.ts';
import { modernTaskRequest } from '../../../support/mcp/raw-http.ts';
import { type PrismServer, startPrism } from '../../../support/prism.ts';
import { toolReasonOf } from '../../../support/reason.ts';
import { type ReplicaSet, startReplicaSet } from '../../../support/replicas.ts';

let prism: PrismServer;
let set: ReplicaSet;
let admin: ReturnType<typeof adminClient>;
let key: string;

beforeAll(async () => {
  prism = await startPrism('unikraft', 'platform');
  set = await startReplicaSet({
    count: 4,
    environment: {
      PORTCULLIS_DEV_UPSTREAMS: `unikraft=${prism.url}`,
      PORTCULLIS_APPROVAL_WAIT_MS: '3600000',
    },
  });
  admin = adminClient(set.url, set.adminToken);
  key = (await holdUnikraftAction(admin, ['asker'])).asker!;
}, 240_000);

afterAll(async () => {
  await set?.close();
  await prism?.stop();
});

async function ranOnce(id: string): Promise<void> {
  while ((await executedCalls(id)) === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await executedCalls(id)).toBe(1);
}

async function executedCalls(id: string): Promise<number> {
  const events = await admin('GET', `/audit?workspace=default&agent=asker&limit=200`);
  // biome-ignore lint/suspicious/noExplicitAny: the reply read field by field
  return (events.body as any[]).filter(
    (e) =>
      e.subject === `approval:${id}` &&
      e.action === ACTION &&
      e.decision === 'allowed' &&
      e.upstreamHost != null,
  ).length;
}

describe('held calls across replicas', { timeout: 240_000 }, () => {
  it('held on one replica, approved through nginx: runs once, the waiting request gets its result', async () => {
    const client: Client = await mcpClient(set.replicas[0]!.url, key);
    try {
      const args = { body: [{ name: 'vol-replicas' }] };
      const reply = callTool(client, ACTION, args);
      const id = (await heldApproval(admin, args)).id as string;
      // Through nginx: whichever replica takes it, the one holding the wait sees it.
      expect((await admin('POST', `${APPROVALS}/${id}/approve`, {})).status).toBe(200);
      expect((await reply).isError).toBeFalsy();
      expect(await executedCalls(id)).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('loses no approval when the replica holding the wait is killed: the call again runs once', async () => {
    const doomed = set.replicas[1]!;
    const client = await mcpClient(doomed.url, key);
    const args = { body: [{ name: 'vol-killed' }] };
    const reply = callTool(client, ACTION, args).catch((error: unknown) => error);
    const id = (await heldApproval(admin, args)).id as string;
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    await reply;
    await client.close().catch(() => {});
    const survivor = adminClient(set.replicas[0]!.url, set.adminToken);
    expect((await survivor('POST', `${APPROVALS}/${id}/approve`, {})).status).toBe(200);
    // It runs when approved, no one waiting; the call again gets its result, not a second run.
    await ranOnce(id);
    const again = await mcpClient(set.replicas[0]!.url, key);
    try {
      expect((await callTool(again, ACTION, args)).isError).toBeFalsy();
      expect(await executedCalls(id)).toBe(1);
      // The approval is spent: the same call once more is held anew (wait on a new approval).
      const third = callTool(again, ACTION, args);
      const next = await (async () => {
        for (;;) {
          const list = await survivor('GET', APPROVALS);
          // biome-ignore lint/suspicious/noExplicitAny: the reply read field by field
          const found = (list.body as any[]).find(
            (a) => a.id !== id && JSON.stringify(a.arguments) === JSON.stringify(args),
          );
          if (found) return found.id as string;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      expect((await survivor('POST', `${APPROVALS}/${next}/deny`, { reason: 'once' })).status).toBe(
        200,
      );
      expect(toolReasonOf(await third)).toBe('approval_denied');
      expect(await executedCalls(id)).toBe(1);
    } finally {
      await again.close();
    }
  });

  it('a task client: held on one replica, approved on another, runs then (no poll), once', async () => {
    const holder = set.replicas[0]!;
    const args = { body: [{ name: 'vol-task-replicas' }] };
    const started = (
      await modernTaskRequest(holder.url, key, 'tools/call', { name: ACTION, arguments: args })
    ).result!;
    expect(started).toMatchObject({ resultType: 'task', status: 'working' });
    const id = (await heldApproval(admin, args)).id as string;
    // Replica 3: never killed (the kill tests end 1 and 2), whatever the order.
    const other = set.replicas[3]!;
    const approver = adminClient(other.url, set.adminToken);
    expect((await approver('POST', `${APPROVALS}/${id}/approve`, {})).status).toBe(200);
    await ranOnce(id);
    const done = (await modernTaskRequest(set.url, key, 'tasks/get', { taskId: started.taskId }))
      .result!;
    expect(done).toMatchObject({ status: 'completed', result: { content: expect.any(Array) } });
    expect(done.result.isError).toBeFalsy();
    expect(await executedCalls(id)).toBe(1);
  });

  it('a task client: the replica that answered the task killed, approving on a survivor runs it, once', async () => {
    const doomed = set.replicas[2]!;
    const args = { body: [{ name: 'vol-task-killed' }] };
    const started = (
      await modernTaskRequest(doomed.url, key, 'tools/call', { name: ACTION, arguments: args })
    ).result!;
    const id = (await heldApproval(admin, args)).id as string;
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const survivor = set.replicas[0]!;
    const approver = adminClient(survivor.url, set.adminToken);
    expect((await approver('POST', `${APPROVALS}/${id}/approve`, {})).status).toBe(200);
    await ranOnce(id);
    const done = (
      await modernTaskRequest(survivor.url, key, 'tasks/get', { taskId: started.taskId })
    ).result!;
    expect(done).toMatchObject({ status: 'completed' });
    expect(await executedCalls(id)).toBe(1);
  });
});
