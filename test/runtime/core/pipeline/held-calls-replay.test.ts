/**
 * An approval covers one call (docs/approvals.md, "What an approval
 * covers"): the agent, the connection, the action and the sha256 of the
 * arguments' canonical JSON. Once an approval of one SDK 1.x client's call
 * is approved, the call made again with other arguments, or the same call
 * made by another agent, is held anew under an approval of its own and runs
 * nothing; the same arguments written in another key order are the same
 * call, given the approved call's result (it ran once, when approved).
 * A call denied is told so once, with the approver's reason, when it is
 * made again; then it is held anew. Prism serves Unikraft.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVALS, type Json } from '../../../support/approvals/approvals-api.ts';
import {
  HELD_ACTION as ACTION,
  type HeldSide,
  type HeldSides,
  startHeldSides,
} from '../../../support/approvals/held-unikraft.ts';
import { callTool, mcpClient } from '../../../support/gateway.ts';
import { toolReasonOf } from '../../../support/reason.ts';

let held: HeldSides<'side'>;
let gateway: HeldSide['gateway'];
let admin: HeldSide['admin'];
let keys: HeldSide['keys'];

beforeAll(async () => {
  held = await startHeldSides({
    side: { agents: ['asker', 'bystander'], environment: { PORTCULLIS_APPROVAL_WAIT_MS: '0' } },
  });
  ({ gateway, admin, keys } = held.sides.side);
}, 120_000);

afterAll(async () => {
  await held?.close();
});

/** The action's runs: its allowed events with an upstream. */
async function runs(): Promise<Json[]> {
  const events = (await gateway.running.gateway.store.audit.query({ limit: 500 })) as Json[];
  return events.filter(
    (e) => e.action === ACTION && e.decision === 'allowed' && e.upstreamHost !== null,
  );
}

/** The approval a call was told it waits for. */
function approvalOf(reply: Awaited<ReturnType<typeof callTool>>): string {
  expect(toolReasonOf(reply)).toBe('approval_pending');
  return reply.structuredContent?.error?.detail?.approval as string;
}

describe('an approved call, replayed', () => {
  it('with other arguments or by another agent is held anew and runs nothing; the same arguments in another order get the result of its one run', async () => {
    const asker: Client = await mcpClient(gateway.url, keys.asker!);
    const bystander: Client = await mcpClient(gateway.url, keys.bystander!);
    try {
      const args = { body: [{ name: 'vol-replay' }], server: { metro: 'fra' } };
      const id = approvalOf(await callTool(asker, ACTION, args));
      expect((await admin('POST', `${APPROVALS}/${id}/approve`, {})).status).toBe(200);
      // It runs when approved (no request waits on it); its result is kept for the call again.
      while ((await runs()).length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await runs()).toMatchObject([{ subject: `approval:${id}` }]);

      // Other arguments: in the body, and where the call is sent.
      for (const other of [
        { body: [{ name: 'vol-replay-2' }], server: { metro: 'fra' } },
        { body: [{ name: 'vol-replay' }], server: { metro: 'dal' } },
        { body: [{ name: 'vol-replay' }, { name: 'vol-more' }], server: { metro: 'fra' } },
      ]) {
        const held = approvalOf(await callTool(asker, ACTION, other));
        expect(held).not.toBe(id);
      }
      // Another agent, the same arguments: not its approval.
      const theirs = approvalOf(await callTool(bystander, ACTION, args));
      expect(theirs).not.toBe(id);
      expect((await admin('GET', `${APPROVALS}/${theirs}`)).body).toMatchObject({
        state: 'pending',
        agent: 'bystander',
      });
      // None of these ran anything.
      expect(await runs()).toHaveLength(1);

      // The same arguments, keys in another order: the same canonical JSON, the approved call's result.
      const reordered = { server: { metro: 'fra' }, body: [{ name: 'vol-replay' }] };
      const given = await callTool(asker, ACTION, reordered);
      expect(given.isError).toBeFalsy();
      expect((await admin('GET', `${APPROVALS}/${id}`)).body.state).toBe('executed');
      expect(await runs()).toHaveLength(1);
      // Given once: the call again is held anew, and nothing runs a second time.
      expect(approvalOf(await callTool(asker, ACTION, args))).not.toBe(id);
      expect(await runs()).toHaveLength(1);
    } finally {
      await asker.close();
      await bystander.close();
    }
  });

  it('after a denial is told approval_denied once, with the reason, then held anew; nothing runs', async () => {
    const asker: Client = await mcpClient(gateway.url, keys.asker!);
    try {
      const args = { body: [{ name: 'vol-denied' }] };
      const id = approvalOf(await callTool(asker, ACTION, args));
      const denied = await admin('POST', `${APPROVALS}/${id}/deny`, { reason: 'keep this one' });
      expect(denied.body).toMatchObject({ state: 'denied', reason: 'keep this one' });
      const told = await callTool(asker, ACTION, args);
      expect(told.isError).toBe(true);
      expect(toolReasonOf(told)).toBe('approval_denied');
      expect(told.structuredContent?.error?.detail?.approval).toBe(id);
      expect(told.content[0]?.text).toContain('keep this one');
      // Told once: the call again asks an approver again, under a new approval.
      const renewed = approvalOf(await callTool(asker, ACTION, args));
      expect(renewed).not.toBe(id);
      expect(approvalOf(await callTool(asker, ACTION, args))).toBe(renewed);
      const events = (await gateway.running.gateway.store.audit.query({ limit: 500 })) as Json[];
      expect(
        events
          .filter((e) => e.subject === `approval:${id}` && e.action === ACTION)
          .map((e) => e.reason)
          .sort(),
      ).toEqual(['approval_denied', 'approval_pending']);
      expect(
        (await runs()).filter((e) => [`approval:${id}`, `approval:${renewed}`].includes(e.subject)),
      ).toEqual([]);
    } finally {
      await asker.close();
    }
  });
});
