/**
 * The probe's sign-in branch end to end: the upstream is a real
 * OAuth-protected MCP server (a second Portcullis, whose /mcp answers 401
 * with an RFC 9728 `resource_metadata` challenge and publishes its
 * protected-resource metadata). Connecting keeps a `sign_in_needed` draft
 * naming the authorization server; connecting again, by name or by the same
 * address, carries that draft on: never a second connection, never started
 * over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionViews } from '../../../../../runtime/core/operator/connection-views.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.ts';

let gateway: TestGateway;
let protectedServer: TestGateway;
let ctx: OperatorContext;

beforeAll(async () => {
  [gateway, protectedServer] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startTestGateway(),
  ]);
  ctx = gateway.running.gateway.operator('test');
});
afterAll(async () => {
  await Promise.all([gateway?.close(), protectedServer?.close()]);
});

describe('a server that wants a browser sign-in', () => {
  it('is kept as a sign_in_needed draft naming its authorization server, and carried on when connected again', async () => {
    const url = `${protectedServer.url}/mcp`;
    const first = await connectUrl(ctx, { workspace: 'default', url, name: 'guarded' });
    expect(first.next).toBe('sign_in');
    expect(first.authorizationServers).toEqual([protectedServer.url]);
    expect(first.connection.status).toBe('pending');
    expect(first.endpoint).toMatchObject({ draft: 'sign_in_needed', authKind: 'oauth', url });
    expect(first.tools).toBeUndefined();
    expect(await ctx.store.remoteTools.forConnection(first.connection.id)).toEqual([]);

    const byName = await connectUrl(ctx, { workspace: 'default', url, name: 'guarded' });
    const byAddress = await connectUrl(ctx, { workspace: 'default', url });
    for (const again of [byName, byAddress]) {
      expect(again.next).toBe('sign_in');
      expect(again.connection.id).toBe(first.connection.id);
      expect(again.connection.name).toBe('guarded');
      expect(again.endpoint.draft).toBe('sign_in_needed');
    }
    const views = await connectionViews(ctx, { workspace: 'default' });
    const drafts = views.filter((v) => v.remote?.url === url);
    expect(drafts.map((v) => [v.name, v.status, v.remote?.draft])).toEqual([
      ['guarded', 'pending', 'sign_in_needed'],
    ]);
    const history = await ctx.store.audit.query({
      connectionId: first.connection.id,
      ascending: true,
    });
    expect(history.map((e) => e.action)).toEqual([
      'connection.create',
      'connection.update',
      'connection.update',
    ]);
  });
});
