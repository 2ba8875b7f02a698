/**
 * A client without tasks learns its approval expired, once (docs/approvals.md),
 * as it learns of a denial: the SDK 1.x client calls an `ask` action on a
 * gateway whose approvals expire after `PORTCULLIS_APPROVAL_TTL_S=10`, Prism
 * serving Unikraft. Told `approval_pending`, its approval expires (by the
 * sweep, here); the call again with the same arguments is answered
 * `approval_expired` naming that approval and whom to ask, and the call
 * after it is held anew. A request that waited out its approval and was
 * told `approval_expired` then is not told twice: its call again is held
 * anew at once. Nothing reaches Prism.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { expireApprovals } from '../../../../runtime/core/pipeline/held-calls.ts';
import { APPROVALS, type Json } from '../../../support/approvals/approvals-api.ts';
import { expiringSidesForFile, pastExpiry } from '../../../support/approvals/expiring-sides.ts';
import { HELD_ACTION as ACTION, type HeldSide } from '../../../support/approvals/held-unikraft.ts';
import { callTool, mcpClient } from '../../../support/gateway.ts';
import { toolReasonOf } from '../../../support/reason.ts';

/** `brief`'s requests wait a moment, then are told approval_pending; `patient`'s wait longer than an approval lives. */
const sides = expiringSidesForFile();

async function eventsOf(side: HeldSide): Promise<Json[]> {
  return (await side.gateway.running.gateway.store.audit.query({ limit: 500 })) as Json[];
}

function approvalOf(reply: Json): string {
  const id = reply.structuredContent?.error?.detail?.approval as string;
  expect(id).toMatch(/^apr_/);
  return id;
}

describe('an expired approval, told to a client without tasks (SDK 1.x)', () => {
  it('answers the call again approval_expired once, naming the approval and whom to ask, then holds it anew', async () => {
    const client: Client = await mcpClient(sides.brief.gateway.url, sides.brief.keys.asker!);
    try {
      const args = { body: [{ name: 'vol-lapses' }] };
      const first = await callTool(client, ACTION, args);
      expect(toolReasonOf(first)).toBe('approval_pending');
      const id = approvalOf(first);
      await pastExpiry(sides.brief, id);
      expect(await expireApprovals(sides.brief.gateway.running.gateway.store, new Date())).toBe(1);

      const told = await callTool(client, ACTION, args);
      expect(told.isError).toBe(true);
      expect(toolReasonOf(told)).toBe('approval_expired');
      expect(approvalOf(told)).toBe(id);
      expect(told.content[0]?.text).toContain(id);
      expect(told.content[0]?.text).toContain('owner or operator');

      // Told once: the call again asks an approver again, under a new approval, and keeps it.
      const renewed = approvalOf(await callTool(client, ACTION, args));
      expect(renewed).not.toBe(id);
      expect((await sides.brief.admin('GET', `${APPROVALS}/${renewed}`)).body.state).toBe(
        'pending',
      );
      expect(approvalOf(await callTool(client, ACTION, args))).toBe(renewed);

      const events = await eventsOf(sides.brief);
      expect(
        events
          .filter((e) => e.subject === `approval:${id}` && e.action === ACTION)
          .map((e) => e.reason)
          .sort(),
      ).toEqual(['approval_expired', 'approval_pending']);
      expect(events.filter((e) => e.action === ACTION && e.decision === 'allowed')).toEqual([]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('does not tell twice a request told approval_expired while it waited: the call again is held anew', async () => {
    const client: Client = await mcpClient(sides.patient.gateway.url, sides.patient.keys.asker!);
    try {
      const args = { body: [{ name: 'vol-waited-out' }] };
      const waited = await callTool(client, ACTION, args);
      expect(toolReasonOf(waited)).toBe('approval_expired');
      const id = approvalOf(waited);

      // The next call is held anew (it waits out its own approval in turn).
      const again = await callTool(client, ACTION, args);
      expect(toolReasonOf(again)).toBe('approval_expired');
      expect(approvalOf(again)).not.toBe(id);
      const held = (await eventsOf(sides.patient)).filter(
        (e) => e.action === ACTION && e.reason === 'approval_pending',
      );
      expect(held.map((e) => e.subject).sort()).toEqual(
        [`approval:${id}`, `approval:${approvalOf(again)}`].sort(),
      );
    } finally {
      await client.close();
    }
  }, 90_000);
});
