/** A remote connection in error is probed again in the background and recovers by itself; a dead one backs off. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import { refreshConnection } from '../../../../../runtime/core/operator/remote-refresh.ts';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.ts';
import { manualProbe } from '../../../../support/remote/manual-probe.ts';
import { startUpstream, type Upstream } from '../../../../support/remote/upstream-servers.ts';

let gateway: TestGateway;
let ctx: OperatorContext;
let alive: Upstream;
let dying: Upstream;

beforeAll(async () => {
  [gateway, alive, dying] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startUpstream('stateful'),
    startUpstream('modern'),
  ]);
  ctx = gateway.running.gateway.operator('test');
});
afterAll(async () => {
  await Promise.all([gateway?.close(), alive?.close(), dying?.close()]);
});

describe('the background re-probe', () => {
  it('marks a connection in error ok again once its server answers, and backs off while it does not', async () => {
    const up = await connectUrl(ctx, { workspace: 'default', url: alive.url, name: 'alive' });
    const down = await connectUrl(ctx, { workspace: 'default', url: dying.url, name: 'dying' });
    await dying.close();
    for (const { connection } of [up, down])
      await ctx.store.connections.recordHealth(connection.id, 'error', 5, new Date().toISOString());
    let clock = Date.now();
    const probe = manualProbe(ctx, { now: () => new Date(clock) });
    const health = async (id: string) =>
      (await ctx.store.connections.byId(up.connection.workspaceId, id))!.health;
    const opened = alive.sessions.length;
    await probe.check();
    expect(await health(up.connection.id)).toBe('ok');
    expect(alive.sessions.length).toBe(opened + 1);
    expect(await health(down.connection.id)).toBe('error');
    // Not again before its backoff has passed.
    const seen = dying.seenHeaders.length;
    await probe.check();
    expect(dying.seenHeaders.length).toBe(seen);
    clock += 60_000;
    await probe.check();
    expect(await health(down.connection.id)).toBe('error');
  });

  it('discovers a tool list again once its ttlMs ran out, and a changed tool goes to review', async () => {
    const { connection, endpoint } = await connectUrl(ctx, {
      workspace: 'default',
      url: alive.url,
      name: 'expiring',
    });
    await ctx.store.remoteEndpoints.put({
      ...endpoint,
      toolsExpireAt: new Date(Date.now() - 1_000).toISOString(),
    });
    alive.setDescription('A new description.');
    const probe = manualProbe(ctx, { refresh: (c, e) => refreshConnection(ctx, c, e) });
    const before = await ctx.store.remoteTools.forConnection(connection.id);
    await probe.check();
    const after = await ctx.store.remoteTools.forConnection(connection.id);
    const hash = (tools: typeof before) =>
      tools.find((t) => t.name === 'get_weather')?.contractHash;
    expect(hash(after)).not.toBe(hash(before));
    expect(after.find((t) => t.name === 'get_weather')?.contract.description).toBe(
      'A new description.',
    );
    // No ttlMs from this server: the list stays until it is refreshed again.
    expect((await ctx.store.remoteEndpoints.byConnection(connection.id))?.toolsExpireAt).toBeNull();
  });
});
