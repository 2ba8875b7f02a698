/**
 * The admin HTTP API for remote MCP connections: connect by URL, paste a
 * snippet with its values, list (unverified, names only), refresh, and
 * disconnect; a header canary never comes back in any reply.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { startUpstream, type Upstream } from '../../../support/remote/upstream-servers.ts';

const CANARY = 'canary-admin-0a1b2c3d4e';

let gateway: TestGateway;
let upstream: Upstream;
let open: Upstream;
let admin: ReturnType<typeof adminClient>;

beforeAll(async () => {
  [gateway, upstream, open] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startUpstream('stateful', { requireHeader: { name: 'X-Api-Key', value: CANARY } }),
    startUpstream('modern'),
  ]);
  admin = adminClient(gateway.url, gateway.adminToken!);
});
afterAll(async () => {
  await Promise.all([gateway?.close(), upstream?.close(), open?.close()]);
});

describe('the admin API for remote MCP connections', () => {
  it('connects by URL, and refuses a bad address naming the field', async () => {
    const created = await admin('POST', '/workspaces/default/remote-connections', {
      url: open.url,
      name: 'open',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ next: 'review', endpoint: { revision: '2026-07-28' } });
    const bad = await admin('POST', '/workspaces/default/remote-connections', { url: 'ftp://x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'remote_url_invalid', field: 'url' });
  });

  /** Pastes a snippet naming the keyed server `name`, its key given as a placeholder's value. */
  const paste = (name: string) =>
    admin('POST', '/workspaces/default/remote-connections/import', {
      config: JSON.stringify({
        mcpServers: { [name]: { url: upstream.url, headers: { 'X-Api-Key': '<YOUR_KEY>' } } },
      }),
      values: { 'X-Api-Key': CANARY },
    });

  it('takes a pasted snippet with its placeholder values, and shows only header names', async () => {
    const created = await paste('keyed');
    expect(created.status).toBe(201);
    expect(created.text).not.toContain(CANARY);
    const listed = await admin('GET', '/workspaces/default/connections');
    expect(listed.text).not.toContain(CANARY);
    const keyed = listed.body.find((c: { name: string }) => c.name === 'keyed');
    expect(keyed.remote).toMatchObject({
      verified: false,
      label: `unverified server: ${new URL(upstream.url).host}`,
      headerNames: ['X-Api-Key'],
    });
  });

  it('refuses a command entry', async () => {
    const refused = await admin('POST', '/workspaces/default/remote-connections/import', {
      config: { mcpServers: { local: { command: 'npx' } } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'remote_config_invalid',
      field: 'mcpServers.local.command',
    });
  });

  it('refreshes and disconnects', async () => {
    expect((await paste('keyed-gone')).status).toBe(201);
    const refreshed = await admin('POST', '/workspaces/default/connections/keyed-gone/refresh');
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({ added: [], changed: [], retired: [] });
    const removed = await admin('DELETE', '/workspaces/default/connections/keyed-gone');
    expect(removed.status).toBe(200);
    const listed = await admin('GET', '/workspaces/default/connections');
    expect(listed.body.map((c: { name: string }) => c.name)).not.toContain('keyed-gone');
  });
});
