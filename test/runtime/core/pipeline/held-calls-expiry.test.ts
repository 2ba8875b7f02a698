/**
 * An approval no one decides in time, for a client that does not take tasks
 * (docs/approvals.md): the SDK 1.x client calls an `ask` action on a gateway
 * whose approvals expire after `PORTCULLIS_APPROVAL_TTL_S=10` (the least it
 * takes), Prism serving Unikraft. Told `approval_pending` after a short wait
 * (`PORTCULLIS_APPROVAL_WAIT_MS`), its approval expires; approving it then is
 * a conflict, and the call again with the same arguments is told
 * `approval_expired` once, then held anew under another approval, never run. A request still waiting when its approval
 * expires is answered `approval_expired`. The sweep (the one each replica
 * runs every minute) writes `approval.expire`, and nothing reached Prism.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { expireApprovals } from '../../../../runtime/core/pipeline/held-calls.ts';
import { APPROVALS, type Json } from '../../../support/approvals/approvals-api.ts';
import {
  expiringSidesForFile,
  pastExpiry as expiryOf,
} from '../../../support/approvals/expiring-sides.ts';
import { HELD_ACTION as ACTION, type HeldSide } from '../../../support/approvals/held-unikraft.ts';
import { callTool, mcpClient } from '../../../support/gateway.ts';
import { toolReasonOf } from '../../../support/reason.ts';

/** `brief`'s requests wait a moment, then are told approval_pending; `patient`'s wait longer than an approval lives. */
const sides = expiringSidesForFile();

async function eventsOf(side: HeldSide): Promise<Json[]> {
  return (await side.gateway.running.gateway.store.audit.query({ limit: 500 })) as Json[];
}

/** Whether the action ever ran: an allowed event of it with an upstream. */
async function ranUpstream(side: HeldSide): Promise<Json[]> {
  return (await eventsOf(side)).filter(
    (e) => e.action === ACTION && e.decision === 'allowed' && e.upstreamHost !== null,
  );
}

/** Waits (the test's timeout bounds it) until the approval's time has run out. */
async function pastExpiry(side: HeldSide, id: string): Promise<void> {
  await expiryOf(side, id);
  expect((await side.admin('GET', `${APPROVALS}/${id}`)).body.state).toBe('expired');
}

describe('an approval that expires, for a client without tasks (SDK 1.x)', () => {
  it('is told approval_expired once, then held anew when called again, never run; approving the expired one is a conflict; the sweep audits it', async () => {
    const client: Client = await mcpClient(sides.brief.gateway.url, sides.brief.keys.asker!);
    try {
      const args = { body: [{ name: 'vol-expires' }] };
      const first = await callTool(client, ACTION, args);
      expect(first.isError).toBe(true);
      expect(toolReasonOf(first)).toBe('approval_pending');
      const id = first.structuredContent?.error?.detail?.approval as string;
      expect(id).toMatch(/^apr_/);
      expect(first.content[0]?.text).toContain(id);

      await pastExpiry(sides.brief, id);
      // Too late to approve: it is no longer pending.
      const late = await sides.brief.admin('POST', `${APPROVALS}/${id}/approve`, {});
      expect(late.status).toBe(409);
      expect(late.body.error.code).toBe('conflict');

      // The same call again is told it expired, once (held-calls-expiry-told.test.ts has more)...
      const told = await callTool(client, ACTION, args);
      expect(toolReasonOf(told)).toBe('approval_expired');
      expect(told.structuredContent?.error?.detail?.approval).toBe(id);
      // ...then held anew: a new approval, named in the answer; the expired one is not run.
      const again = await callTool(client, ACTION, args);
      expect(toolReasonOf(again)).toBe('approval_pending');
      const renewed = again.structuredContent?.error?.detail?.approval as string;
      expect(renewed).toMatch(/^apr_/);
      expect(renewed).not.toBe(id);
      expect(again.content[0]?.text).toContain(renewed);
      expect((await sides.brief.admin('GET', `${APPROVALS}/${renewed}`)).body).toMatchObject({
        state: 'pending',
        action: ACTION,
      });

      // The sweep each replica runs every minute: the overdue one expired, audited; the new one is not.
      const store = sides.brief.gateway.running.gateway.store;
      expect(await expireApprovals(store, new Date())).toBe(1);
      expect((await sides.brief.admin('GET', `${APPROVALS}/${renewed}`)).body.state).toBe(
        'pending',
      );
      const expired = (await eventsOf(sides.brief)).filter((e) => e.action === 'approval.expire');
      expect(expired).toMatchObject([
        { subject: `approval:${id}`, actorKind: 'system', decision: 'allowed' },
      ]);
      expect(
        (await sides.brief.admin('GET', `${APPROVALS}?state=expired`)).body.map((a: Json) => a.id),
      ).toEqual([id]);
      // Still the same new approval while it waits.
      expect(
        (await callTool(client, ACTION, args)).structuredContent?.error?.detail?.approval,
      ).toBe(renewed);
      const held = (await eventsOf(sides.brief)).filter(
        (e) => e.action === ACTION && e.reason === 'approval_pending',
      );
      expect(held.map((e) => e.subject)).toEqual(
        expect.arrayContaining([`approval:${id}`, `approval:${renewed}`]),
      );
      expect(await ranUpstream(sides.brief)).toEqual([]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('answers a request still waiting when its approval expires approval_expired, and runs nothing', async () => {
    const client: Client = await mcpClient(sides.patient.gateway.url, sides.patient.keys.asker!);
    try {
      const args = { body: [{ name: 'vol-waits-out' }] };
      const reply = await callTool(client, ACTION, args);
      expect(reply.isError).toBe(true);
      expect(toolReasonOf(reply)).toBe('approval_expired');
      const id = reply.structuredContent?.error?.detail?.approval as string;
      expect(id).toMatch(/^apr_/);
      expect(reply.content[0]?.text).toContain(id);
      expect((await sides.patient.admin('GET', `${APPROVALS}/${id}`)).body.state).toBe('expired');
      expect((await sides.patient.admin('POST', `${APPROVALS}/${id}/approve`, {})).status).toBe(
        409,
      );
      expect(await ranUpstream(sides.patient)).toEqual([]);
    } finally {
      await client.close();
    }
  }, 60_000);
});
