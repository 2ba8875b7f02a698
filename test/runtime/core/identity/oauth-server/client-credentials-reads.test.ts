/**
 * A machine client's row is read once per request that needs it, and never
 * kept past a change: the token request reads it once (to authenticate the
 * client, then handed to the grant), the first `/mcp` call with its token
 * once (whether it is still registered, as the agent it names), later calls
 * not at all while the governance revision stands, and a revoked agent's
 * token is refused at its next call.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { revokeAgent } from '../../../../../runtime/core/operator/agents.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { addMachineClient } from '../../../../../runtime/core/operator/machine-clients.ts';
import { basic, sdkClient } from '../../../../support/oauth/machine-client.ts';
import {
  type OAuthGateway,
  READ_ARGS,
  READ_TOOL,
  startOAuthGateway,
} from '../../../../support/oauth/oauth-gateway.ts';
import { tokenRequest } from '../../../../support/oauth/raw-flow.ts';

let running: OAuthGateway;
let client: { id: string; secret: string };
/** The machine client ids the store was asked for, in order. */
const reads: string[] = [];

beforeAll(async () => {
  running = await startOAuthGateway();
  const ctx = running.gateway.running.gateway.operator('test');
  const made = await addMachineClient(ctx, { workspace: 'default', name: 'nightly' });
  client = { id: made.client.id, secret: made.secret! };
  await grant(ctx, {
    workspace: 'default',
    agent: 'nightly',
    connection: 'unikraft',
    scope: 'reads',
    actions: [],
    credential: 'shared',
  });
  const rows = running.gateway.running.gateway.store.oauth.machineClients;
  const byId = rows.byId.bind(rows);
  rows.byId = (id) => {
    reads.push(id);
    return byId(id);
  };
});
afterAll(async () => {
  await running?.close();
});

async function readsDuring(work: () => Promise<unknown>): Promise<number> {
  const before = reads.length;
  await work();
  return reads.slice(before).filter((id) => id === client.id).length;
}

it('reads the row once for a token, once for its first call, and not again until something changes', async () => {
  let token = '';
  expect(
    await readsDuring(async () => {
      const reply = await tokenRequest(
        running.url,
        { grant_type: 'client_credentials', scope: 'tools:read' },
        basic(client.id, client.secret),
      );
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      token = String(reply.body.access_token);
    }),
  ).toBe(1);
  let mcp: Awaited<ReturnType<typeof sdkClient>> | undefined;
  const call = async () => {
    const reply = await mcp!.callTool({ name: READ_TOOL, arguments: READ_ARGS });
    expect(reply.isError).toBeFalsy();
  };
  // The session's first request (initialize) checks the token, then the call.
  expect(
    await readsDuring(async () => {
      mcp = await sdkClient(running.url, token);
      await call();
    }),
  ).toBe(1);
  expect(await readsDuring(call)).toBe(0);
  expect(await readsDuring(call)).toBe(0);
  await mcp!.close();

  // Revoked: the next call reads what is true now and is refused.
  const ctx = running.gateway.running.gateway.operator('test');
  await revokeAgent(ctx, { workspace: 'default', agent: 'nightly' });
  const refused = await fetch(`${running.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(refused.status).toBe(401);
});
