/**
 * Client credentials for machine clients an operator registered: one with a
 * secret (`portcullis oauth client add --machine --secret`, the secret shown
 * once) and one with its keys at a JWKS URL (the admin API,
 * `private_key_jwt`). Each gets a token for its own agent and, once that
 * agent is granted a connection, calls a tool with it through the MCP SDK
 * client; the attacks are refused with their stable reason in the audit log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { adminClient } from '../../../../support/gateway.ts';
import {
  basic,
  type ClientKeys,
  sdkClient,
  startClientKeys,
  withAssertion,
} from '../../../../support/oauth/machine-client.ts';
import {
  type OAuthGateway,
  READ_ARGS,
  READ_TOOL,
  startOAuthGateway,
} from '../../../../support/oauth/oauth-gateway.ts';
import { registerClient, tokenRequest } from '../../../../support/oauth/raw-flow.ts';
import { runPortcullisHere } from '../../../../support/run-cli.ts';

const DEV = { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' };
let running: OAuthGateway;
let keys: ClientKeys;
let secretClient: { id: string; secret: string };
let keyClient: string;

async function refusalsOf(action = 'oauth.token'): Promise<string[]> {
  const events = await running.gateway.running.gateway.store.audit.query({ action, limit: 50 });
  return events.map((event) => String(event.subject));
}

beforeAll(async () => {
  running = await startOAuthGateway({ environment: DEV });
  keys = await startClientKeys();
  const env = { ...DEV, PORTCULLIS_DATA_DIR: running.gateway.dataDir };
  const added = await runPortcullisHere(
    ['oauth', 'client', 'add', 'nightly-build', '--machine', '--secret', '--json'],
    env,
  );
  expect(added.code, added.stderr).toBe(0);
  const { client, secret } = JSON.parse(added.stdout) as { client: { id: string }; secret: string };
  secretClient = { id: client.id, secret };
  const admin = adminClient(running.url, running.gateway.adminToken!);
  const viaApi = await admin('POST', '/workspaces/default/machine-clients', {
    name: 'deployer',
    jwksUri: keys.jwksUri,
  });
  expect(viaApi.status).toBe(201);
  expect(viaApi.body.secret).toBeUndefined();
  keyClient = viaApi.body.client.id;
  const ctx = running.gateway.running.gateway.operator('test');
  for (const agent of ['nightly-build', 'deployer'])
    await grant(ctx, {
      workspace: 'default',
      agent,
      connection: 'unikraft',
      scope: 'reads',
      actions: [],
      credential: 'shared',
    });
});
afterAll(async () => {
  await running?.close();
  await keys?.close();
});

describe('client_secret_basic', () => {
  it('gives a token the MCP SDK client calls a tool with as the client’s agent', async () => {
    const reply = await tokenRequest(
      running.url,
      { grant_type: 'client_credentials', scope: 'tools:read' },
      basic(secretClient.id, secretClient.secret),
    );
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ token_type: 'Bearer', scope: 'tools:read' });
    expect(reply.body.refresh_token).toBeUndefined();
    const client = await sdkClient(running.url, String(reply.body.access_token));
    const result = await client.callTool({ name: READ_TOOL, arguments: READ_ARGS });
    expect(result.isError).toBeFalsy();
    await client.close();
    const [issued] = await running.gateway.running.gateway.store.audit.query({
      action: 'oauth.token.client_credentials',
      limit: 1,
    });
    expect(issued).toMatchObject({ actorKind: 'agent', subject: secretClient.id });
  });

  it('keeps only the secret’s hash: the list shows no secret, a wrong one is refused', async () => {
    const listed = await runPortcullisHere(['oauth', 'client', 'list', '--json'], {
      ...DEV,
      PORTCULLIS_DATA_DIR: running.gateway.dataDir,
    });
    expect(listed.stdout).toContain('nightly-build');
    expect(listed.stdout).not.toContain(secretClient.secret);
    const wrong = await tokenRequest(
      running.url,
      { grant_type: 'client_credentials' },
      basic(secretClient.id, `${secretClient.secret}x`),
    );
    expect([wrong.status, wrong.body.error]).toEqual([401, 'invalid_client']);
    expect(await refusalsOf()).toContain('invalid_client:client_secret_wrong');
    const events = JSON.stringify(await running.gateway.running.gateway.store.audit.query({}));
    expect(events).not.toContain(secretClient.secret);
  });
});

describe('private_key_jwt', () => {
  const audience = () => `${running.url}/oauth/token`;

  it('gives a token for an assertion signed with the client’s published key, once', async () => {
    const assertion = await keys.assertion(keyClient, audience());
    const first = await withAssertion(running.url, assertion, { grant_type: 'client_credentials' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const client = await sdkClient(running.url, String(first.body.access_token));
    expect((await client.callTool({ name: READ_TOOL, arguments: READ_ARGS })).isError).toBeFalsy();
    await client.close();
    const again = await withAssertion(running.url, assertion, { grant_type: 'client_credentials' });
    expect(again.body.error).toBe('invalid_client');
    expect(await refusalsOf()).toContain('invalid_client:assertion_replayed');
  });

  it.each([
    [
      'another audience',
      () => keys.assertion(keyClient, 'https://other.example/token'),
      'assertion_audience',
    ],
    [
      'a key it never published',
      () => keys.assertionWithOtherKey(keyClient, audience()),
      'assertion_signature',
    ],
    [
      'an exp an hour ahead',
      () => keys.assertion(keyClient, audience(), { exp: Math.floor(Date.now() / 1000) + 3600 }),
      'assertion_lifetime',
    ],
    [
      'an expired one',
      () => keys.assertion(keyClient, audience(), { exp: Math.floor(Date.now() / 1000) - 120 }),
      'assertion_lifetime',
    ],
    [
      'another client’s iss',
      () => keys.assertion(secretClient.id, audience()),
      'client_auth_method',
    ],
  ])('refuses %s', async (_name, make, reason) => {
    const reply = await withAssertion(running.url, await make(), {
      grant_type: 'client_credentials',
    });
    expect([reply.status, reply.body.error]).toEqual([401, 'invalid_client']);
    expect(await refusalsOf()).toContain(`invalid_client:${reason}`);
  });
});

it('refuses client_credentials from a public client, and a resource that is not ours', async () => {
  const publicClient = await registerClient(running.url);
  const reply = await tokenRequest(running.url, {
    grant_type: 'client_credentials',
    client_id: publicClient.clientId,
  });
  expect(reply.body.error).toBe('invalid_client');
  const foreign = await tokenRequest(
    running.url,
    { grant_type: 'client_credentials', resource: 'https://elsewhere.example/mcp' },
    basic(secretClient.id, secretClient.secret),
  );
  expect(foreign.body.error).toBe('invalid_target');
});

it('stops the client’s tokens when its agent is revoked', async () => {
  const admin = adminClient(running.url, running.gateway.adminToken!);
  const added = await admin('POST', '/workspaces/default/machine-clients', { name: 'short-lived' });
  expect(added.status).toBe(201);
  const credentials = basic(added.body.client.id, added.body.secret);
  const reply = await tokenRequest(running.url, { grant_type: 'client_credentials' }, credentials);
  expect(reply.status).toBe(200);
  const listTools = () =>
    fetch(`${running.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${reply.body.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
  expect((await listTools()).status).not.toBe(401);
  expect((await admin('POST', '/workspaces/default/agents/short-lived/revoke')).status).toBe(200);
  expect((await listTools()).status).toBe(401);
  const refused = await tokenRequest(
    running.url,
    { grant_type: 'client_credentials' },
    credentials,
  );
  expect(refused.body.error).toBe('invalid_grant');
});
