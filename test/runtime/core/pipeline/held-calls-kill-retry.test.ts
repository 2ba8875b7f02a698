/**
 * A held call survives the replica holding its wait (docs/approvals.md): two
 * gateway processes on PostgreSQL and Redis behind nginx, a real SDK v2
 * server connected by URL as the upstream, its `delete_item` set to `ask`
 * (the server counts every call that reaches it). An SDK 1.x client (no
 * tasks) calls on replica A and waits on its open request; A is killed
 * with SIGKILL while it waits; the call is approved through replica B's
 * admin API; the client calls again with the same arguments through nginx
 * (A dead, B answers): it gets the call's result, the server saw the call
 * exactly once, the approval is `executed`, and the audit has one run
 * (allowed, with an upstream) naming the approval.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVALS, heldApproval, type Json } from '../../../support/approvals/approvals-api.ts';
import { adminClient, callTool, mcpClient } from '../../../support/gateway.ts';
import { startUpstream, type Upstream } from '../../../support/remote/upstream-servers.ts';
import { type ReplicaSet, startReplicaSet } from '../../../support/replicas.ts';

const CONNECTION = 'held';
const ACTION = `${CONNECTION}__delete_item`;

let upstream: Upstream;
let set: ReplicaSet;
let admin: ReturnType<typeof adminClient>;
let key: string;

beforeAll(async () => {
  upstream = await startUpstream('modern');
  set = await startReplicaSet({
    count: 2,
    // Longer than the test: the request waits until its replica dies.
    environment: { PORTCULLIS_APPROVAL_WAIT_MS: '3600000' },
  });
  admin = adminClient(set.url, set.adminToken);
  const connected = await admin('POST', '/workspaces/default/remote-connections', {
    url: upstream.url,
    name: CONNECTION,
  });
  expect(connected.status).toBe(201);
  const base = `/workspaces/default/connections/${CONNECTION}/actions`;
  expect((await admin('POST', `${base}/review`, { all: true })).status).toBe(200);
  expect((await admin('POST', `${base}/ask`, { actions: ['delete_item'] })).status).toBe(200);
  key = (await admin('POST', '/workspaces/default/agents', { name: 'asker' })).body.key as string;
  const granted = await admin('POST', '/workspaces/default/grants', {
    agent: 'asker',
    connection: CONNECTION,
    scope: 'all',
  });
  expect(granted.status).toBe(201);
}, 240_000);

afterAll(async () => {
  await set?.close();
  await upstream?.close();
});

describe('a held call whose replica is killed while the client waits', { timeout: 240_000 }, () => {
  it('approved on the other replica, runs exactly once: the client calling again through nginx gets its result', async () => {
    const [doomed, survivor] = set.replicas as [(typeof set.replicas)[0], (typeof set.replicas)[0]];
    const args = { id: 'item-survives' };
    const waiting: Client = await mcpClient(doomed.url, key);
    const reply = callTool(waiting, ACTION, args).catch((error: unknown) => error);
    const id = (await heldApproval(admin, args)).id as string;
    expect(upstream.calls.filter((c) => c.tool === 'delete_item')).toEqual([]);

    doomed.child.kill('SIGKILL');
    await doomed.exited;
    // The open request dies with its replica: the client never got a result.
    expect(await reply).toBeInstanceOf(Error);
    await waiting.close().catch(() => {});

    const approved = await adminClient(survivor.url, set.adminToken)(
      'POST',
      `${APPROVALS}/${id}/approve`,
      {},
    );
    expect(approved.status).toBe(200);

    const retrying: Client = await mcpClient(set.url, key);
    try {
      const again = await callTool(retrying, ACTION, args);
      expect(again.isError).toBeFalsy();
      expect(again.content[0]?.text).toBe('deleted item-survives');
    } finally {
      await retrying.close();
    }
    // Once: the server saw one call, the approval is spent, and one run names it.
    expect(upstream.calls.filter((c) => c.tool === 'delete_item')).toHaveLength(1);
    expect((await admin('GET', `${APPROVALS}/${id}`)).body.state).toBe('executed');
    const events = (await admin('GET', '/audit?workspace=default&agent=asker&limit=200'))
      .body as Json[];
    const runs = events.filter(
      (e) =>
        e.action === ACTION &&
        e.decision === 'allowed' &&
        e.upstreamHost != null &&
        e.subject === `approval:${id}`,
    );
    expect(runs).toHaveLength(1);
    expect(events.filter((e) => e.action === ACTION && e.upstreamHost != null)).toHaveLength(1);
  });
});
