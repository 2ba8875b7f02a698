/**
 * Calls held for approval on a remote MCP server, for a client that does not
 * take tasks (docs/approvals.md, "How the agent waits"): a real SDK v2 server
 * (test/support/remote/upstream-servers.ts, stateless 2026-07-28 and
 * stateful 2025-11-25) connected by URL, its `delete_item` set to `ask`,
 * called by the SDK 1.x client. On a gateway whose requests wait for an
 * approver: approved, the waiting request gets the server's result and the
 * tool ran once; denied, `approval_denied` with the reason, never run. On one
 * whose requests are answered at once: `approval_pending`, approved, the
 * call runs then, once, the call again gets its result, and the one after
 * that is held anew.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVALS, heldApproval, type Json } from '../../../../support/approvals/approvals-api.ts';
import {
  APPROVER,
  holdRemoteTools,
  type RemoteHeldGateway,
  startRemoteHeldGateway,
} from '../../../../support/approvals/held-remote.ts';
import { consoleClient } from '../../../../support/console.ts';
import { callTool, mcpClient } from '../../../../support/gateway.ts';
import { toolReasonOf } from '../../../../support/reason.ts';
import {
  startUpstream,
  type Upstream,
  type UpstreamKind,
} from '../../../../support/remote/upstream-servers.ts';

const KINDS: UpstreamKind[] = ['modern', 'stateful'];

type Side = RemoteHeldGateway;

const upstreams = new Map<UpstreamKind, Upstream>();
/** Requests wait for an approver (as long as a test takes). */
let waiting: Side;
/** Requests are answered at once. */
let prompt: Side;

async function openSide(waitMs: string): Promise<Side> {
  const side = await startRemoteHeldGateway(waitMs);
  for (const [kind, upstream] of upstreams)
    await holdRemoteTools(side.ctx, {
      url: upstream.url,
      connection: `held-${kind}`,
      actions: ['delete_item'],
    });
  return side;
}

beforeAll(async () => {
  for (const kind of KINDS) upstreams.set(kind, await startUpstream(kind));
  [waiting, prompt] = await Promise.all([openSide('3600000'), openSide('0')]);
}, 120_000);

afterAll(async () => {
  await Promise.all([waiting?.gateway.close(), prompt?.gateway.close()]);
  for (const upstream of upstreams.values()) await upstream.close();
});

/** The approval's runs on `side`: allowed events of `tool` with an upstream, naming it. */
async function runsOf(side: Side, tool: string, id: string): Promise<Json[]> {
  const events = (await side.gateway.running.gateway.store.audit.query({ limit: 500 })) as Json[];
  return events.filter(
    (e) =>
      e.subject === `approval:${id}` &&
      e.action === tool &&
      e.decision === 'allowed' &&
      e.upstreamHost !== null,
  );
}

describe.each(KINDS)('a held call to a %s remote SDK server, from an SDK 1.x client', (kind) => {
  const tool = `held-${kind}__delete_item`;
  /** The server's own count of the tool's calls. */
  const deletes = () => upstreams.get(kind)!.calls.filter((call) => call.tool === 'delete_item');

  it('waits on its open request: approved, it gets the server’s result, the tool run once', async () => {
    const client: Client = await mcpClient(waiting.gateway.url, waiting.key);
    try {
      const before = deletes().length;
      const args = { id: `waits-${kind}` };
      const reply = callTool(client, tool, args);
      const approval = await heldApproval(waiting.admin, args);
      expect(approval).toMatchObject({ action: tool, task: false, server: { verified: false } });
      expect(deletes().length).toBe(before);
      expect((await waiting.admin('POST', `${APPROVALS}/${approval.id}/approve`, {})).status).toBe(
        200,
      );
      const result = await reply;
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: `deleted waits-${kind}` }]);
      expect(deletes().length).toBe(before + 1);
      expect(await runsOf(waiting, tool, approval.id)).toHaveLength(1);
      expect((await waiting.admin('GET', `${APPROVALS}/${approval.id}`)).body.state).toBe(
        'executed',
      );
    } finally {
      await client.close();
    }
  });

  it('waits on its open request: denied in the console, approval_denied with the reason, never run', async () => {
    const client: Client = await mcpClient(waiting.gateway.url, waiting.key);
    try {
      const before = deletes().length;
      const args = { id: `denied-${kind}` };
      const reply = callTool(client, tool, args);
      const approval = await heldApproval(waiting.admin, args);
      const oscar = consoleClient(waiting.gateway.url);
      expect((await oscar.signIn(APPROVER)).status).toBe(200);
      expect(
        (await oscar.call('POST', `/approvals/${approval.id}/deny`, { reason: 'keep it' })).status,
      ).toBe(200);
      const refused = await reply;
      expect(refused.isError).toBe(true);
      expect(toolReasonOf(refused)).toBe('approval_denied');
      expect(refused.structuredContent?.error?.detail?.approval).toBe(approval.id);
      expect(refused.content[0]?.text).toContain('keep it');
      expect(deletes().length).toBe(before);
      expect(await runsOf(waiting, tool, approval.id)).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('is told approval_pending; approved, the call runs then, once, and the call again gets its result', async () => {
    const client: Client = await mcpClient(prompt.gateway.url, prompt.key);
    try {
      const before = deletes().length;
      const args = { id: `again-${kind}` };
      const first = await callTool(client, tool, args);
      expect(toolReasonOf(first)).toBe('approval_pending');
      const id = first.structuredContent?.error?.detail?.approval as string;
      expect(deletes().length).toBe(before);
      expect((await prompt.admin('POST', `${APPROVALS}/${id}/approve`, {})).status).toBe(200);
      // It runs when approved, no request waiting on it.
      while ((await runsOf(prompt, tool, id)).length === 0)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(deletes().length).toBe(before + 1);
      const again = await callTool(client, tool, args);
      expect(again.isError).toBeFalsy();
      expect(again.content).toEqual([{ type: 'text', text: `deleted again-${kind}` }]);
      expect(deletes().length).toBe(before + 1);
      expect(await runsOf(prompt, tool, id)).toHaveLength(1);
      // Given once: the call again is held anew, and the tool not called again.
      const third = await callTool(client, tool, args);
      expect(toolReasonOf(third)).toBe('approval_pending');
      expect(third.structuredContent?.error?.detail?.approval).not.toBe(id);
      expect(deletes().length).toBe(before + 1);
    } finally {
      await client.close();
    }
  });
});
