/**
 * A client configured for one connection's endpoint (`/mcp/c/<connection>`)
 * discovers that endpoint's resource, asks for a token for it, and uses it
 * there: the token's audience is the connection's endpoint, it is accepted
 * on that endpoint only, and its scopes act on that connection only.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { narrowToConnection } from '../../../../../runtime/core/identity/principals/scopes.ts';
import {
  type OAuthGateway,
  READ_ARGS,
  READ_TOOL,
  startOAuthGateway,
  WRITE_ARGS,
  WRITE_TOOL,
} from '../../../../support/oauth/oauth-gateway.ts';
import {
  codeFor,
  exchange,
  mcpStatus,
  registerClient,
} from '../../../../support/oauth/raw-flow.ts';

let running: OAuthGateway;
beforeAll(async () => {
  running = await startOAuthGateway();
});
afterAll(() => running?.close());

async function connect(path: string, token: string): Promise<Client> {
  const client = new Client({ name: 'connection-audience-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${running.url}${path}`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

it('serves a token issued for /mcp/c/<connection> on that endpoint, its scopes that connection’s', async () => {
  const resource = `${running.url}/mcp/c/unikraft`;
  const metadata = (await (
    await fetch(`${running.url}/.well-known/oauth-protected-resource/mcp/c/unikraft`)
  ).json()) as { resource: string };
  expect(metadata.resource).toBe(resource);

  const client = await registerClient(running.url);
  const tokens = await exchange(
    running.url,
    client,
    await codeFor(running.url, client, { resource, scope: 'tools:read tools:write' }),
  );
  expect(tokens.status).toBe(200);
  await running.grantConsentAgents();
  const mcp = await connect('/mcp/c/unikraft', String(tokens.body.access_token));
  const { tools } = await mcp.listTools();
  expect(tools.map((tool) => tool.name)).toContain(READ_TOOL);
  const read = await mcp.callTool({ name: READ_TOOL, arguments: READ_ARGS });
  expect(read.isError).toBeFalsy();
  const write = await mcp.callTool({ name: WRITE_TOOL, arguments: WRITE_ARGS });
  expect(write.isError).toBeFalsy();
  await mcp.close();
  // Bound to that endpoint: the aggregated /mcp is another resource, and refuses it.
  expect(await mcpStatus(running.url, String(tokens.body.access_token))).toBe(401);
});

it('narrows every scope of such a token to its connection, dropping another connection’s', () => {
  expect([
    ...narrowToConnection(
      ['tools:read', 'tools:write:staging', 'tools:destructive:prod'],
      'staging',
    ),
  ]).toEqual(['tools:read:staging', 'tools:write:staging']);
});
