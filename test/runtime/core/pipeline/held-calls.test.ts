/**
 * Calls held for approval end to end (docs/approvals.md): the real gateway,
 * Prism serving Unikraft as the provider, an `ask` destructive action, and
 * the approvers' admin API. An SDK 1.x client (no tasks) waits on its open
 * request and runs once approved, or is told `approval_pending` and runs the
 * approved call once when it calls again; a client that declares the tasks
 * extension (the SDK v2 client on a 2025-11-25 session, a raw 2026-07-28
 * client) is answered a task that completes with the call's result once
 * approved, or fails `approval_denied` / `approval_expired`; another agent's
 * poll is `task_not_found`. Two gateways: one whose requests wait for an
 * approver (no timing: the test approves while the call is open), one whose
 * requests are answered at once.
 */
import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { expireApprovals } from '../../../../runtime/core/pipeline/held-calls.ts';
import { APPROVALS, heldApproval, type Json } from '../../../support/approvals/approvals-api.ts';
import {
  HELD_ACTION as ACTION,
  type HeldSide,
  heldSidesForFile,
} from '../../../support/approvals/held-unikraft.ts';
import { callTool, mcpClient } from '../../../support/gateway.ts';
import { modernTaskRequest, TASKS_CAPABILITIES } from '../../../support/mcp/raw-http.ts';
import { toolReasonOf } from '../../../support/reason.ts';

type Side = HeldSide;

const agents = ['asker', 'intruder'];
const sides = heldSidesForFile({
  /** Requests wait for an approver (as long as a test takes). */
  waiting: { agents, environment: { PORTCULLIS_APPROVAL_WAIT_MS: '3600000' } },
  /** Requests are answered at once. */
  prompt: { agents, environment: { PORTCULLIS_APPROVAL_WAIT_MS: '0' } },
});

async function auditOf(side: Side, subject: string): Promise<Json[]> {
  const events = (await side.gateway.running.gateway.store.audit.query({ limit: 200 })) as Json[];
  return events.filter((e) => typeof e.subject === 'string' && e.subject.startsWith(subject));
}

/** Waits until the approval's call has an executed event (the test's timeout bounds it); then expects exactly one. */
async function executedOnce(side: Side, id: string): Promise<void> {
  const executed = async () =>
    (await auditOf(side, `approval:${id}`)).filter(
      (e) => e.action === ACTION && e.decision === 'allowed' && e.upstreamHost !== null,
    );
  while ((await executed()).length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(await executed()).toHaveLength(1);
}

describe('a client without tasks (SDK 1.x)', () => {
  it('waits on its open request: approved, the call runs once and its event names the approval', async () => {
    const client = await mcpClient(sides.waiting.gateway.url, sides.waiting.keys.asker!);
    try {
      const args = { body: [{ name: 'vol-wait' }] };
      const reply = callTool(client, ACTION, args);
      const approval = await heldApproval(sides.waiting.admin, args);
      expect(approval).toMatchObject({
        state: 'pending',
        agent: 'asker',
        connection: 'unikraft',
        action: ACTION,
        classification: 'destructive',
        task: false,
      });
      const approved = await sides.waiting.admin('POST', `${APPROVALS}/${approval.id}/approve`, {});
      expect(approved.status).toBe(200);
      expect((await reply).isError).toBeFalsy();
      expect((await sides.waiting.admin('GET', `${APPROVALS}/${approval.id}`)).body.state).toBe(
        'executed',
      );
      // Used once: approving again is a conflict.
      expect(
        (await sides.waiting.admin('POST', `${APPROVALS}/${approval.id}/approve`, {})).status,
      ).toBe(409);
      const events = await auditOf(sides.waiting, `approval:${approval.id}`);
      expect(events.map((e) => [e.action, e.decision, e.reason])).toEqual(
        expect.arrayContaining([
          [ACTION, 'denied', 'approval_pending'],
          ['approval.approve', 'allowed', null],
          [ACTION, 'allowed', null],
        ]),
      );
    } finally {
      await client.close();
    }
  });

  it('is told approval_pending with the id; calling again once approved runs it once, never twice', async () => {
    const client: Client = await mcpClient(sides.prompt.gateway.url, sides.prompt.keys.asker!);
    try {
      const args = { body: [{ name: 'vol-again' }] };
      const first = await callTool(client, ACTION, args);
      expect(toolReasonOf(first)).toBe('approval_pending');
      const id = first.structuredContent?.error?.detail?.approval as string;
      expect(id).toMatch(/^apr_/);
      // Calling again while it waits is the same approval, not a second one.
      const again = await callTool(client, ACTION, args);
      expect(again.structuredContent?.error?.detail?.approval).toBe(id);
      // Other arguments need their own approval.
      const other = await callTool(client, ACTION, { body: [{ name: 'vol-other' }] });
      expect(toolReasonOf(other)).toBe('approval_pending');
      expect(other.structuredContent?.error?.detail?.approval).not.toBe(id);

      expect((await sides.prompt.admin('POST', `${APPROVALS}/${id}/approve`, {})).status).toBe(200);
      // It runs when approved (no request waits on it); calling again gets its result.
      await executedOnce(sides.prompt, id);
      // The approval covers those arguments only.
      expect(toolReasonOf(await callTool(client, ACTION, { body: [{ name: 'vol-other' }] }))).toBe(
        'approval_pending',
      );
      expect((await callTool(client, ACTION, args)).isError).toBeFalsy();
      const third = await callTool(client, ACTION, args);
      expect(toolReasonOf(third)).toBe('approval_pending');
      expect(third.structuredContent?.error?.detail?.approval).not.toBe(id);
      const executed = (await auditOf(sides.prompt, `approval:${id}`)).filter(
        (e) => e.action === ACTION && e.decision === 'allowed' && e.upstreamHost !== null,
      );
      expect(executed).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it("is held through discovery mode's call_action, under the action's own name", async () => {
    expect(
      (
        await sides.prompt.admin('PUT', '/workspaces/default/agents/intruder/tools-mode', {
          tools: 'discovery',
        })
      ).status,
    ).toBe(200);
    const client = await mcpClient(sides.prompt.gateway.url, sides.prompt.keys.intruder!);
    try {
      const args = { body: [{ name: 'vol-discovery' }] };
      const reply = await callTool(client, 'call_action', { action: ACTION, arguments: args });
      expect(toolReasonOf(reply)).toBe('approval_pending');
      const id = reply.structuredContent?.error?.detail?.approval as string;
      expect((await sides.prompt.admin('POST', `${APPROVALS}/${id}/approve`, {})).status).toBe(200);
      const ran = await callTool(client, 'call_action', { action: ACTION, arguments: args });
      expect(ran.isError).toBeFalsy();
      const executed = (await auditOf(sides.prompt, `approval:${id}`)).filter(
        (e) => e.action === ACTION && e.decision === 'allowed' && e.upstreamHost !== null,
      );
      expect(executed).toMatchObject([{ via: 'discovery' }]);
    } finally {
      await client.close();
    }
  });

  it('is held on /mcp/c/<connection> as on /mcp: approved, it runs once, the call again gets it', async () => {
    const client = await mcpClient(
      sides.prompt.gateway.url,
      sides.prompt.keys.asker!,
      '/mcp/c/unikraft',
    );
    try {
      const { tools } = await client.listTools();
      const name = tools.find((t) => t.name.endsWith('delete_volumes'))?.name;
      expect(name).toBeDefined();
      const args = { body: [{ name: 'vol-endpoint' }] };
      const reply = await callTool(client, name!, args);
      expect(toolReasonOf(reply)).toBe('approval_pending');
      const id = reply.structuredContent?.error?.detail?.approval as string;
      expect((await sides.prompt.admin('POST', `${APPROVALS}/${id}/approve`, {})).status).toBe(200);
      await executedOnce(sides.prompt, id);
      expect((await callTool(client, name!, args)).isError).toBeFalsy();
      await executedOnce(sides.prompt, id);
    } finally {
      await client.close();
    }
  });
});

describe('a client without tasks waits with progress', () => {
  /** Progress notifications heard, and a promise of the first. */
  function progressHeard() {
    const heard: Array<{ progress: number; total?: number; message?: string }> = [];
    let first!: () => void;
    const firstHeard = new Promise<void>((resolve) => {
      first = resolve;
    });
    return {
      heard,
      firstHeard,
      onprogress: (p: { progress: number; total?: number; message?: string }) => {
        heard.push(p);
        first();
      },
    };
  }

  it('SDK 1.x on 2025-11-25 with a progress token: told it waits for the approval, then its result', async () => {
    const client = await mcpClient(sides.waiting.gateway.url, sides.waiting.keys.asker!);
    try {
      expect((client.transport as TransportV1).protocolVersion).toBe('2025-11-25');
      const args = { body: [{ name: 'vol-progress-v1' }] };
      const progress = progressHeard();
      const reply = client.callTool({ name: ACTION, arguments: args }, undefined, {
        onprogress: progress.onprogress,
      });
      const approval = await heldApproval(sides.waiting.admin, args);
      // Approved only once the client has heard it waits.
      await progress.firstHeard;
      expect(progress.heard[0]?.message).toContain(approval.id);
      expect(
        (await sides.waiting.admin('POST', `${APPROVALS}/${approval.id}/approve`, {})).status,
      ).toBe(200);
      expect((await reply).isError).toBeFalsy();
      await executedOnce(sides.waiting, approval.id);
    } finally {
      await client.close();
    }
  });

  it('SDK v2 without tasks on 2026-07-28 with a progress token: the same', async () => {
    const client = new ClientV2(
      { name: 'agent-v2-modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${sides.waiting.gateway.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${sides.waiting.keys.asker}` } },
      }),
    );
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const args = { body: [{ name: 'vol-progress-v2' }] };
      const progress = progressHeard();
      const reply = client.callTool({ name: ACTION, arguments: args }, {
        onprogress: progress.onprogress,
      } as never);
      const approval = await heldApproval(sides.waiting.admin, args);
      expect(approval.task).toBe(false);
      await progress.firstHeard;
      expect(progress.heard[0]?.message).toContain(approval.id);
      expect(
        (await sides.waiting.admin('POST', `${APPROVALS}/${approval.id}/approve`, {})).status,
      ).toBe(200);
      const result = (await reply) as { isError?: boolean; content: unknown[] };
      expect(result.isError).toBeFalsy();
      await executedOnce(sides.waiting, approval.id);
    } finally {
      await client.close();
    }
  });
});

/** A raw 2026-07-28 request of `agent` declaring the tasks extension. */
function ask(
  side: Side,
  method: string,
  params: Record<string, unknown>,
  agent = 'asker',
): Promise<{ result?: Json; error?: Json }> {
  return modernTaskRequest(side.gateway.url, side.keys[agent]!, method, params);
}

describe('a client that takes tasks', () => {
  it('SDK v2 on a 2025-11-25 session: a working task, completed with the call once approved', async () => {
    const client = new ClientV2({ name: 'agent-v2', version: '1.0.0' }, {
      capabilities: TASKS_CAPABILITIES,
    } as never);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${sides.prompt.gateway.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${sides.prompt.keys.asker}` } },
      }),
    );
    const request = (method: string, params: Json) =>
      client.request(
        { method, params } as never,
        z.object({}).passthrough() as never,
      ) as Promise<Json>;
    try {
      const args = { body: [{ name: 'vol-task' }] };
      const started = await request('tools/call', { name: ACTION, arguments: args });
      expect(started).toMatchObject({ status: 'working' });
      const approval = await heldApproval(sides.prompt.admin, args);
      expect(approval.task).toBe(true);
      expect(await request('tasks/get', { taskId: started.taskId })).toMatchObject({
        status: 'working',
      });
      // Another agent's poll of the id is an id that never existed; so is the same
      // agent's on another endpoint (/mcp/c/<connection>: only that endpoint's tasks are its).
      expect(
        (await ask(sides.prompt, 'tasks/get', { taskId: started.taskId }, 'intruder')).error,
      ).toMatchObject({
        data: { error: { code: 'task_not_found' } },
      });
      expect(
        (
          await modernTaskRequest(
            sides.prompt.gateway.url,
            sides.prompt.keys.asker!,
            'tasks/get',
            { taskId: started.taskId },
            '/mcp/c/unikraft',
          )
        ).error,
      ).toMatchObject({ data: { error: { code: 'task_not_found' } } });
      expect(
        (await sides.prompt.admin('POST', `${APPROVALS}/${approval.id}/approve`, {})).status,
      ).toBe(200);
      // It runs when approved, not at the next poll: its event is written with no tasks/get.
      await executedOnce(sides.prompt, approval.id);
      const done = await request('tasks/get', { taskId: started.taskId });
      expect(done).toMatchObject({ status: 'completed', result: { content: expect.any(Array) } });
      expect(done.result.isError).toBeFalsy();
      // Polled again: the same result, the call not made twice.
      expect(await request('tasks/get', { taskId: started.taskId })).toMatchObject({
        status: 'completed',
      });
      const executed = (await auditOf(sides.prompt, `approval:${approval.id}`)).filter(
        (e) => e.action === ACTION && e.decision === 'allowed' && e.upstreamHost !== null,
      );
      expect(executed).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('raw 2026-07-28: denied, the task fails approval_denied with the reason', async () => {
    const args = { body: [{ name: 'vol-deny' }] };
    const started = (await ask(sides.prompt, 'tools/call', { name: ACTION, arguments: args }))
      .result!;
    expect(started).toMatchObject({ resultType: 'task', status: 'working' });
    const approval = await heldApproval(sides.prompt.admin, args);
    const denied = await sides.prompt.admin('POST', `${APPROVALS}/${approval.id}/deny`, {
      reason: 'not this volume',
    });
    expect(denied.body).toMatchObject({ state: 'denied', reason: 'not this volume' });
    const failed = (await ask(sides.prompt, 'tasks/get', { taskId: started.taskId })).result!;
    expect(failed).toMatchObject({
      status: 'failed',
      error: { data: { error: { code: 'approval_denied' } } },
    });
    const events = await auditOf(sides.prompt, `approval:${approval.id}`);
    expect(events.map((e) => e.action)).toContain('approval.deny');
  });

  it('raw 2026-07-28: a task the client cancelled never runs, even once approved', async () => {
    const args = { body: [{ name: 'vol-cancel' }] };
    const started = (await ask(sides.prompt, 'tools/call', { name: ACTION, arguments: args }))
      .result!;
    const approval = await heldApproval(sides.prompt.admin, args);
    await ask(sides.prompt, 'tasks/cancel', { taskId: started.taskId });
    expect(
      (await sides.prompt.admin('POST', `${APPROVALS}/${approval.id}/approve`, {})).status,
    ).toBe(200);
    expect((await ask(sides.prompt, 'tasks/get', { taskId: started.taskId })).result).toMatchObject(
      {
        status: 'cancelled',
      },
    );
    expect((await sides.prompt.admin('GET', `${APPROVALS}/${approval.id}`)).body.state).toBe(
      'approved',
    );
  });

  it('raw 2026-07-28: no one decides in time, the task fails approval_expired', async () => {
    const args = { body: [{ name: 'vol-expire' }] };
    const started = (await ask(sides.prompt, 'tools/call', { name: ACTION, arguments: args }))
      .result!;
    const approval = await heldApproval(sides.prompt.admin, args);
    const store = sides.prompt.gateway.running.gateway.store;
    expect(
      await expireApprovals(store, new Date(Date.parse(approval.expiresAt) + 1)),
    ).toBeGreaterThan(0);
    expect(
      (await sides.prompt.admin('POST', `${APPROVALS}/${approval.id}/approve`, {})).status,
    ).toBe(409);
    const failed = (await ask(sides.prompt, 'tasks/get', { taskId: started.taskId })).result!;
    expect(failed).toMatchObject({
      status: 'failed',
      error: { data: { error: { code: 'approval_expired' } } },
    });
    const events = await auditOf(sides.prompt, `approval:${approval.id}`);
    expect(events.map((e) => e.action)).toContain('approval.expire');
  });
});
