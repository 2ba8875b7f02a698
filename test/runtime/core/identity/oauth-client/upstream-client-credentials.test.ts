/**
 * A remote connection whose shared credential is the workspace's own client
 * authenticated with `private_key_jwt` (RFC 7523 client assertions signed by
 * a key sealed in the vault; issue 35), against oidc-provider (client
 * credentials, the client registered by its public key) and an SDK v2 server
 * that verifies each bearer's audience: the draft is connected with the
 * token, an agent's call carries it, a refused client writes nothing, and
 * the private key is in no reply, audit event or log line.
 */
import { Writable } from 'node:stream';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLog } from '../../../../../runtime/compose/log.ts';
import { changeActions } from '../../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import {
  adminClient,
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../../support/gateway.ts';
import {
  type OAuthUpstream,
  startOAuthUpstream,
} from '../../../../support/remote/oauth-upstream.ts';
import { expireStoredTokens } from '../../../../support/remote/signed-in.ts';

const CLIENT = 'portcullis-keyed';

let gateway: TestGateway;
let upstream: OAuthUpstream;
let privateJwk: Record<string, unknown>;
let logged = '';
let seen = '';

beforeAll(async () => {
  const keys = await generateKeyPair('ES256', { extractable: true });
  privateJwk = { ...(await exportJWK(keys.privateKey)), kid: 'keyed-1', alg: 'ES256' };
  const publicJwk = { ...(await exportJWK(keys.publicKey)), kid: 'keyed-1', alg: 'ES256' };
  const log = createLog({
    level: 'debug',
    destination: new Writable({
      write(chunk, _encoding, done) {
        logged += String(chunk);
        done();
      },
    }),
  });
  [gateway, upstream] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' }, log }),
    startOAuthUpstream({
      tenant: 'keyed',
      registration: false,
      clientCredentials: true,
      clients: [
        {
          client_id: CLIENT,
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
          token_endpoint_auth_method: 'private_key_jwt',
          token_endpoint_auth_signing_alg: 'ES256',
          jwks: { keys: [publicJwk] },
        },
      ],
    }),
  ]);
  const ctx = gateway.running.gateway.operator('test');
  await connectUrl(ctx, { workspace: 'default', url: upstream.mcp.url, name: 'keyed' });
});
afterAll(async () => {
  await Promise.all([gateway?.close(), upstream?.close()]);
});

const admin = () => adminClient(gateway.url, gateway.adminToken!);

describe('client credentials with private_key_jwt', () => {
  it('refuses a key the server does not know, writing nothing', async () => {
    const other = await generateKeyPair('ES256', { extractable: true });
    const wrong = { ...(await exportJWK(other.privateKey)), kid: 'keyed-1', alg: 'ES256' };
    const viewOf = async () => {
      const listed = await admin()('GET', '/workspaces/default/connections');
      return (listed.body as Array<{ name: string; remote?: Record<string, unknown> }>).find(
        (c) => c.name === 'keyed',
      )?.remote;
    };
    const before = await viewOf();
    const stored = await gateway.running.gateway.store.remoteEndpoints.byConnection(
      (await gateway.running.gateway.store.connections.all()).find((c) => c.name === 'keyed')!.id,
    );
    const reply = await admin()('PUT', '/workspaces/default/connections/keyed/auth', {
      clientCredentials: 'private_key_jwt',
      clientId: CLIENT,
      clientKey: JSON.stringify(wrong),
    });
    seen += reply.text;
    expect(reply.status).toBe(502);
    expect(reply.body.error.code).toBe('upstream_client_credentials_failed');
    expect(reply.body.error.detail).toMatchObject({ oauthError: 'invalid_client' });
    // Nothing written: the connection's setting and record are as they were.
    expect(await viewOf()).toEqual(before);
    const after = await gateway.running.gateway.store.remoteEndpoints.byConnection(
      stored!.connectionId,
    );
    expect(after).toEqual(stored);
  });

  it("connects the draft with the workspace's own token and carries it on calls", async () => {
    const before = upstream.clientCredentialGrants;
    const reply = await admin()('PUT', '/workspaces/default/connections/keyed/auth', {
      clientCredentials: 'private_key_jwt',
      clientId: CLIENT,
      clientKey: JSON.stringify(privateJwk),
    });
    seen += reply.text;
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({
      clientCredentials: 'private_key_jwt',
      connected: { next: 'review' },
    });
    expect(upstream.clientCredentialGrants).toBe(before + 1);
    const ctx = gateway.running.gateway.operator('test');
    await changeActions(ctx, 'review', { workspace: 'default', connection: 'keyed', all: true });
    const { key } = await createAgent(ctx, { workspace: 'default', name: 'keyed-agent' });
    await grant(ctx, {
      workspace: 'default',
      agent: 'keyed-agent',
      connection: 'keyed',
      scope: 'reads',
    });
    const client = await mcpClient(gateway.url, key);
    const first = await callTool(client, 'keyed__get_weather', { city: 'Oslo' });
    const second = await callTool(client, 'keyed__get_weather', { city: 'Bergen' });
    await client.close();
    seen += JSON.stringify([first, second]);
    expect([first.isError ?? false, second.isError ?? false]).toEqual([false, false]);
    // The token is kept until it is due: no second grant for the second call.
    expect(upstream.clientCredentialGrants).toBe(before + 1);
    expect(upstream.acceptedClaims.at(-1)).toMatchObject({
      client_id: CLIENT,
      aud: upstream.mcp.url,
    });
    // Due: the next call asks for a new one first (no refresh token: client credentials again).
    const connectionId = (await gateway.running.gateway.store.connections.all()).find(
      (c) => c.name === 'keyed',
    )!.id;
    await expireStoredTokens(gateway.running.gateway, connectionId);
    const again = await mcpClient(gateway.url, key);
    const third = await callTool(again, 'keyed__get_weather', { city: 'Tromsø' });
    await again.close();
    seen += JSON.stringify(third);
    expect(third.isError ?? false).toBe(false);
    expect(upstream.clientCredentialGrants).toBe(before + 2);
  });

  it('keeps the private key out of replies, the audit log and the log', async () => {
    const events = JSON.stringify(await gateway.running.gateway.store.audit.query({}));
    const d = String(privateJwk.d);
    for (const form of [
      d,
      JSON.stringify(privateJwk),
      Buffer.from(JSON.stringify(privateJwk)).toString('base64'),
    ]) {
      expect(seen).not.toContain(form);
      expect(events).not.toContain(form);
      expect(logged).not.toContain(form);
    }
  });
});
