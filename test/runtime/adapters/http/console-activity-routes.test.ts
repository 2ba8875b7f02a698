/**
 * The console's activity routes on a real gateway: `GET activity` sums a
 * small known set of agents' calls into the right time buckets (counts,
 * refusals, failures, p50/p95 from the latency bins), by connection and by
 * agent, leaves out operators' events, other workspaces' and what falls
 * outside the range, lets a viewer read and keeps another workspace's
 * people out; `GET audit/tail` reads on from a cursor whatever wrote the
 * event (here the store directly, as another replica would).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvent } from '../../../../runtime/core/governance/audit-event.ts';
import type { NewAuditEvent } from '../../../../runtime/core/model/governance.ts';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import {
  CONNECTION,
  type ConsoleGateway,
  consoleClient,
  OTHER,
  PEOPLE,
  startConsoleGateway,
} from '../../../support/console.ts';

const MINUTE = 60_000;
let running: ConsoleGateway;
/** The two minutes (ISO, their start) the known calls fall in, 30 and 10 minutes ago. */
let earlier: string;
let later: string;

beforeAll(async () => {
  running = await startConsoleGateway();
  const { store } = running.gateway.running.gateway;
  const ctx = running.gateway.running.gateway.operator('cli');
  await createAgent(ctx, { workspace: 'default', name: 'other-bot' });
  const workspace = (await store.workspaces.byName('default'))!;
  const elsewhere = (await store.workspaces.byName(OTHER.workspace))!;
  const agents = await store.agents.list(workspace.id);
  const deployBot = agents.find((a) => a.name === 'deploy-bot')!.id;
  const otherBot = agents.find((a) => a.name === 'other-bot')!.id;
  const connectionId = (await store.connections.byName(workspace.id, CONNECTION))!.id;
  const minute = Math.floor(Date.now() / MINUTE) * MINUTE;
  earlier = new Date(minute - 30 * MINUTE).toISOString();
  later = new Date(minute - 10 * MINUTE).toISOString();
  const call = (at: string, fields: Partial<NewAuditEvent>) =>
    auditEvent({
      at: new Date(Date.parse(at) + 5_000).toISOString(),
      actorKind: 'agent',
      actorId: deployBot,
      action: 'weather_get_forecast',
      decision: 'allowed',
      outcome: 'ok',
      workspaceId: workspace.id,
      connectionId,
      ...fields,
    });
  await store.audit.appendMany([
    call(earlier, { latencyMs: 4 }),
    call(earlier, { latencyMs: 8 }),
    call(earlier, { latencyMs: 40, decision: 'denied', outcome: null, reason: 'grant_missing' }),
    call(later, { latencyMs: 120, outcome: 'error', reason: 'upstream_error' }),
    call(later, { latencyMs: 250 }),
    // Another agent, without a connection.
    call(later, { actorId: otherBot, connectionId: null, latencyMs: 2 }),
    // Not counted: an operator's change, a call two hours ago, another workspace's call.
    call(later, { actorKind: 'operator', actorId: 'cli', action: 'agent.create' }),
    call(new Date(minute - 120 * MINUTE).toISOString(), { latencyMs: 9 }),
    call(later, { workspaceId: elsewhere.id, actorId: 'agt_elsewhere', connectionId: 'c' }),
  ]);
});
afterAll(async () => {
  await running?.close();
});

async function signedIn(name: string) {
  const client = consoleClient(running.url);
  expect((await client.signIn(name)).status).toBe(200);
  return client;
}

describe('/console/api/activity', () => {
  it('sums the calls per minute over the last hour, with refusals, failures and p50/p95', async () => {
    const owner = await signedIn(PEOPLE.owner);
    const reply = await owner.call('GET', `/activity?range=1h&connection=${CONNECTION}`);
    expect(reply.status).toBe(200);
    const { points, totals, bucketSeconds } = reply.body;
    expect(bucketSeconds).toBe(60);
    expect(points).toHaveLength(60);
    const busy = points.filter((p: { calls: number }) => p.calls > 0);
    expect(busy).toEqual([
      // 4, 8 and 40 ms: p50 halfway through the 7–10 ms bin, p95 85% through 30–50.
      { at: earlier, calls: 3, refusals: 1, errors: 0, p50Ms: 8.5, p95Ms: 47 },
      // 120 and 250 ms: the 100–150 and 200–300 bins.
      { at: later, calls: 2, refusals: 0, errors: 1, p50Ms: 150, p95Ms: 290 },
    ]);
    expect(totals).toEqual({ calls: 5, refusals: 1, errors: 1, p50Ms: 40, p95Ms: 275 });
  });

  it('shows the whole workspace, or one agent', async () => {
    const owner = await signedIn(PEOPLE.owner);
    const all = await owner.call('GET', '/activity?range=1h');
    expect(all.body.totals).toMatchObject({ calls: 6, refusals: 1, errors: 1 });
    const other = await owner.call('GET', '/activity?range=1h&agent=other-bot');
    // 2 ms: in the 1–2 ms bin, so p50 is halfway through it and p95 95% through.
    expect(other.body.totals).toEqual({
      calls: 1,
      refusals: 0,
      errors: 0,
      p50Ms: 1.5,
      p95Ms: 1.95,
    });
    const deploy = await owner.call('GET', '/activity?range=24h&agent=deploy-bot');
    expect(deploy.body.bucketSeconds).toBe(600);
    expect(deploy.body.points).toHaveLength(144);
    // Two hours back is inside a day: the sixth call counts.
    expect(deploy.body.totals.calls).toBe(6);
  });

  it('lets a viewer read the figures, and refuses a range it does not know, naming the field', async () => {
    const viewer = await signedIn(PEOPLE.viewer);
    const reply = await viewer.call('GET', '/activity?range=1h');
    expect([reply.status, reply.body.totals.calls]).toEqual([200, 6]);
    const wrong = await viewer.call('GET', '/activity?range=2y');
    expect([wrong.status, wrong.body.error.code, wrong.body.error.field]).toEqual([
      400,
      'invalid_input',
      'range',
    ]);
    const anonymous = await consoleClient(running.url).call('GET', '/activity');
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'unauthenticated']);
  });

  it("keeps each workspace's figures to its own people", async () => {
    const otto = await signedIn(PEOPLE.otherOwner);
    const theirs = await otto.call('GET', '/activity?range=1h');
    expect(theirs.body.totals.calls).toBe(1);
    const ours = await otto.call('GET', `/activity?range=1h&connection=${CONNECTION}`);
    expect([ours.status, ours.body.error.code]).toEqual([404, 'not_found']);
    const agent = await otto.call('GET', '/activity?range=1h&agent=deploy-bot');
    expect([agent.status, agent.body.error.code]).toEqual([404, 'not_found']);
  });
});

describe('/console/api/audit/tail', () => {
  it('reads on from its cursor what any writer added, with the filters, oldest first, again until settled', async () => {
    const { store } = running.gateway.running.gateway;
    const workspace = (await store.workspaces.byName('default'))!;
    const viewer = await signedIn(PEOPLE.viewer);
    const start = await viewer.call('GET', '/audit/tail');
    expect(start.body.events).toEqual([]);
    const cursor: number = start.body.cursor;
    expect(cursor).toBeGreaterThan(0);
    const event = (action: string) =>
      auditEvent({
        at: new Date().toISOString(),
        actorKind: 'system',
        action,
        decision: 'allowed',
        workspaceId: workspace.id,
      });
    // Written straight to the store, as another replica's request would be.
    await store.audit.appendMany([event('test.tail.first'), event('test.tail.second')]);
    const ours = (events: Array<{ action: string }>) =>
      events.map((e) => e.action).filter((action) => action.startsWith('test.tail.'));
    const next = await viewer.call('GET', `/audit/tail?afterId=${cursor}`);
    expect(ours(next.body.events)).toEqual(['test.tail.first', 'test.tail.second']);
    // Just written, so not settled (audit-tail.ts): the cursor stays before them and the
    // next read answers them again, for the client to skip.
    const first = next.body.events.find((e: { action: string }) => e.action === 'test.tail.first');
    expect(next.body.cursor).toBeLessThan(first.id);
    const again = await viewer.call('GET', `/audit/tail?afterId=${next.body.cursor}`);
    expect(ours(again.body.events)).toEqual(['test.tail.first', 'test.tail.second']);
    const filtered = await viewer.call(
      'GET',
      `/audit/tail?afterId=${next.body.cursor}&action=test.tail.second`,
    );
    expect(ours(filtered.body.events)).toEqual(['test.tail.second']);
    // Another workspace's owner reads their own events on from there (their sign-in), never ours.
    const otto = await signedIn(PEOPLE.otherOwner);
    const theirs = await otto.call('GET', `/audit/tail?afterId=${cursor}`);
    expect(theirs.status).toBe(200);
    for (const seen of theirs.body.events) expect(seen.workspaceId).not.toBe(workspace.id);
    expect(theirs.body.events.map((e: { action: string }) => e.action)).not.toContain(
      'test.tail.first',
    );
  });
});
