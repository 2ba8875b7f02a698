/**
 * Two connections to the same provider in one workspace: the one named after
 * the provider keeps the catalog's tool names, the other prefixes its own name,
 * and each call goes through the connection its name says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../support/gateway.ts';
import { type PrismServer, startPrism } from '../../../support/prism.ts';

let prism: PrismServer;
let gateway: TestGateway;

beforeAll(async () => {
  prism = await startPrism('unikraft', 'platform');
  gateway = await startTestGateway({ upstreams: { unikraft: prism.url } });
});

afterAll(async () => {
  await gateway?.close();
  await prism?.stop();
});

describe('tool names across connections', () => {
  it('namespaces a second connection and routes each call to its own connection', async () => {
    const admin = adminClient(gateway.url, gateway.adminToken!);
    const prod = (
      await admin('POST', '/workspaces/default/connections', {
        provider: 'unikraft',
        credential: 'p',
      })
    ).body;
    const staging = (
      await admin('POST', '/workspaces/default/connections', {
        provider: 'unikraft',
        name: 'staging',
        credential: 's',
        settings: { metro: 'sin' },
      })
    ).body;
    const { key } = (await admin('POST', '/workspaces/default/agents', { name: 'both' })).body;
    await admin('POST', '/workspaces/default/grants', { agent: 'both', connection: 'unikraft' });
    await admin('POST', '/workspaces/default/grants', { agent: 'both', connection: 'staging' });

    const client = await mcpClient(gateway.url, key);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toHaveLength(68);
      expect(names).toContain('unikraft_get_user');
      expect(names).toContain('staging__unikraft_get_user');
      expect(new Set(names).size).toBe(names.length);

      expect((await callTool(client, 'staging__unikraft_get_user')).isError).toBeFalsy();
      expect((await callTool(client, 'unikraft_get_user')).isError).toBeFalsy();
      const events = (await admin('GET', '/audit?workspace=default&agent=both&limit=2'))
        .body as Array<{
        action: string;
        connectionId: string;
        upstreamHost: string;
      }>;
      expect(events.map((e) => [e.action, e.connectionId, e.upstreamHost])).toEqual([
        ['unikraft_get_user', prod.id, 'api.fra.unikraft.cloud'],
        ['staging__unikraft_get_user', staging.id, 'api.sin.unikraft.cloud'],
      ]);
    } finally {
      await client.close();
    }
  });
});
