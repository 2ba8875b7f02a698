/**
 * The admin API's `PUT /workspaces/:w/connections/:c/apps` against the
 * ext-apps vanilla example connected by URL: the admin token only; a bad
 * body refused naming the field, changing nothing; a change audited
 * (`connection.set_apps`) and seen on `/mcp` at once (off: the tool without
 * `_meta.ui`, its page neither listed nor read; on: both back).
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import { adminClient, startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { appHost } from '../../../support/remote/app-host.ts';
import { type AppServer, startAppServer } from '../../../support/remote/app-server.ts';
import { connectReviewed } from '../../../support/remote/reviewed-connection.ts';

const PAGE = 'ui://clock/get-time/mcp-app.html';
const ROUTE = '/workspaces/default/connections/clock/apps';

let gateway: TestGateway;
let clock: AppServer;
let admin: ReturnType<typeof adminClient>;
let host: Client;

beforeAll(async () => {
  [gateway, clock] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startAppServer('server-basic-vanillajs'),
  ]);
  admin = adminClient(gateway.url, gateway.adminToken!);
  const ctx = gateway.running.gateway.operator('test');
  const { key } = await createAgent(ctx, { workspace: 'default', name: 'viewer' });
  await connectReviewed(ctx, { url: clock.url, name: 'clock' }, 'viewer');
  host = await appHost(`${gateway.url}/mcp`, key);
}, 60_000);
afterAll(async () => {
  await host?.close();
  await gateway?.close();
  await clock?.close();
});

const toolMeta = async () =>
  (await host.listTools()).tools.find((t) => t.name === 'clock__get-time')?._meta;
const pages = async () =>
  (await host.listResources()).resources.map((r) => r.uri).filter((u) => u.startsWith('ui://'));
const lastChange = async (outcome?: 'ok') =>
  (
    await gateway.running.gateway.store.audit.query({
      action: 'connection.set_apps',
      ...(outcome ? { outcome } : {}),
      limit: 1,
    })
  )[0];

describe('PUT /workspaces/:w/connections/:c/apps', () => {
  it('takes the admin token only', async () => {
    for (const authorization of [undefined, 'Bearer not-the-admin-token']) {
      const response = await fetch(`${gateway.url}/admin/v1${ROUTE}`, {
        method: 'PUT',
        headers: {
          'content-type': 'application/json',
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify({ apps: 'off' }),
      });
      expect(response.status).toBe(401);
    }
    expect((await toolMeta())?.ui).toEqual({ resourceUri: PAGE });
  });

  it.each([
    ['a value it does not know', { apps: 'maybe' }, 'apps'],
    ['no value', {}, 'apps'],
    ['a field it does not take', { apps: 'off', every: true }, 'every'],
  ])('refuses %s naming the field, audited, and changes nothing', async (_, body, field) => {
    const before = await lastChange('ok');
    const refused = await admin('PUT', ROUTE, body);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_input', field });
    expect(await lastChange()).toMatchObject({ reason: 'invalid_input' });
    expect((await lastChange('ok'))?.id).toBe(before?.id);
    expect((await toolMeta())?.ui).toEqual({ resourceUri: PAGE });
  });

  it('refuses a connection the workspace has not, naming the field', async () => {
    const refused = await admin('PUT', '/workspaces/default/connections/nowhere/apps', {
      apps: 'off',
    });
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ code: 'not_found', field: 'connection' });
  });

  it('turns the apps off and on, each change audited and seen on /mcp at once', async () => {
    const off = await admin('PUT', ROUTE, { apps: 'off' });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ connection: 'clock', apps: 'off' });
    expect(await lastChange()).toMatchObject({
      actorKind: 'operator',
      subject: 'clock: apps off',
      outcome: 'ok',
    });
    expect(await toolMeta()).toBeUndefined();
    expect(await pages()).toEqual([]);
    await expect(host.readResource({ uri: PAGE })).rejects.toThrow();
    const [refused] = await gateway.running.gateway.store.audit.query({
      action: `resources/read ${PAGE}`,
      limit: 1,
    });
    expect(refused).toMatchObject({ decision: 'denied', reason: 'action_disabled' });
    // The tool itself is still served and called.
    const called = await host.callTool({ name: 'clock__get-time', arguments: {} });
    expect(called.isError).not.toBe(true);

    const on = await admin('PUT', ROUTE, { apps: 'on' });
    expect(on.body).toEqual({ connection: 'clock', apps: 'on' });
    expect(await lastChange()).toMatchObject({ subject: 'clock: apps on', outcome: 'ok' });
    expect((await toolMeta())?.ui).toEqual({ resourceUri: PAGE });
    expect(await pages()).toEqual([PAGE]);
    expect((await host.readResource({ uri: PAGE })).contents[0]).toMatchObject({
      text: await clock.html(),
    });
  });
});
