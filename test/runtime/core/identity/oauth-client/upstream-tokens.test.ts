/**
 * Keeping an upstream sign-in working, against oidc-provider (rotation with
 * reuse detection) in front of an SDK v2 server that verifies its tokens:
 * two calls that both find the access token expired share one refresh (one
 * refresh grant at the authorization server); a refresh token the server
 * already rotated puts the connection in `sign_in_required` once, and later
 * calls fail with that code without going back to the server; sign-out
 * revokes at the server and forgets.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectionViews } from '../../../../../runtime/core/operator/connection-views.ts';
import { signOut } from '../../../../../runtime/core/operator/remote-sign-in.ts';
import { callTool, mcpClient } from '../../../../support/gateway.ts';
import { SignInBrowser, signInThrough } from '../../../../support/remote/sign-in-browser.ts';
import {
  connectSignedIn,
  expireStoredTokens,
  useSignInPeers,
} from '../../../../support/remote/signed-in.ts';

const peers = useSignInPeers({ tenant: 'tokens' });

describe('peers.upstream tokens', () => {
  it('refreshes once for two calls that both find the access token expired', async () => {
    const { connectionId, key } = await connectSignedIn(peers.ctx, peers.upstream, 'twice');
    const client = await mcpClient(peers.gateway.url, key);
    expect((await callTool(client, 'twice__get_weather', { city: 'Oslo' })).isError).toBeFalsy();
    await expireStoredTokens(peers.gateway.running.gateway, connectionId);
    const before = peers.upstream.refreshes.length;
    const replies = await Promise.all([
      callTool(client, 'twice__get_weather', { city: 'Oslo' }),
      callTool(client, 'twice__get_weather', { city: 'Bergen' }),
    ]);
    await client.close();
    expect(replies.map((r) => r.isError ?? false)).toEqual([false, false]);
    expect(peers.upstream.refreshes.slice(before)).toEqual(['ok']);
  });

  it('stops at sign_in_required when the server already rotated the refresh token, without a loop', async () => {
    const { connectionId, key } = await connectSignedIn(peers.ctx, peers.upstream, 'rotated');
    const signIn = peers.gateway.running.gateway.upstreamSignIn;
    const stored = await signIn.tokens('', connectionId, null).load();
    const workspaceId = (await peers.ctx.store.connections.all()).find(
      (c) => c.id === connectionId,
    )!.workspaceId;
    const tokens = (await signIn.tokens(workspaceId, connectionId, null).load())!;
    const client = (await signIn.clients(workspaceId, connectionId).load())!;
    expect(stored).toBeUndefined(); // bound to its workspace: another place does not open it
    // Someone else uses the refresh token first: the server rotates it.
    const elsewhere = await fetch(`${peers.upstream.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refreshToken!,
        client_id: client.clientId,
      }),
    });
    expect(elsewhere.status).toBe(200);
    await expireStoredTokens(peers.gateway.running.gateway, connectionId);
    const before = peers.upstream.refreshes.length;
    const agent = await mcpClient(peers.gateway.url, key);
    const first = await callTool(agent, 'rotated__get_weather', { city: 'Oslo' });
    const second = await callTool(agent, 'rotated__get_weather', { city: 'Oslo' });
    await agent.close();
    expect(first.structuredContent?.error).toMatchObject({
      code: 'oauth_sign_in_required',
      detail: { reason: 'invalid_grant' },
    });
    expect(second.structuredContent?.error?.code).toBe('oauth_sign_in_required');
    // One refused refresh at the server (reuse detected), and nothing after it.
    expect(peers.upstream.refreshes.slice(before)).toEqual(['invalid_grant']);
    const [view] = (await connectionViews(peers.ctx, { workspace: 'default' })).filter(
      (v) => v.name === 'rotated',
    );
    expect(view?.remote?.signIn).toMatchObject({
      state: 'sign_in_required',
      reason: 'invalid_grant',
    });
  });

  it('signs out: revokes at the server, forgets the tokens, and calls fail with sign_in_required', async () => {
    const { key } = await connectSignedIn(peers.ctx, peers.upstream, 'leaving');
    const before = peers.upstream.revocations;
    const done = await signOut(peers.ctx, { workspace: 'default', connection: 'leaving' });
    expect(done).toEqual({ connection: 'leaving', revoked: true });
    expect(peers.upstream.revocations).toBeGreaterThan(before);
    const agent = await mcpClient(peers.gateway.url, key);
    const reply = await callTool(agent, 'leaving__get_weather', { city: 'Oslo' });
    await agent.close();
    expect(reply.structuredContent?.error).toMatchObject({
      code: 'oauth_sign_in_required',
      detail: { reason: 'signed_out' },
    });
  });
});

describe('personal credentials', () => {
  it("answers with a sign-in link for the agent's person, and the call works once they signed in", async () => {
    const { key } = await connectSignedIn(peers.ctx, peers.upstream, 'mine', { personal: true });
    const agent = await mcpClient(peers.gateway.url, key);
    const first = await callTool(agent, 'mine__get_weather', { city: 'Oslo' });
    expect(first.isError).toBe(true);
    const error = first.structuredContent?.error;
    expect(error).toMatchObject({
      code: 'oauth_sign_in_required',
      detail: { reason: 'never', host: new URL(peers.upstream.issuer).host },
    });
    const link = String(error?.detail?.signInUrl);
    expect(first.content[0]?.text).toContain(link);
    const page = await signInThrough(new SignInBrowser(), link, 'bob');
    expect(page.html).toContain('for agent mine-agent');
    const second = await callTool(agent, 'mine__get_weather', { city: 'Oslo' });
    await agent.close();
    expect(second.isError).toBeFalsy();
    expect(second.structuredContent).toEqual({ city: 'Oslo', sky: 'sunny' });
  });
});

describe('personal credentials, asked by URL-mode elicitation', () => {
  it('asks a client that declared it to open the link, and runs the call once the person signed in', async () => {
    const { key } = await connectSignedIn(peers.ctx, peers.upstream, 'asked', { personal: true });
    const client = new Client(
      { name: 'elicits', version: '0.0.0' },
      { capabilities: { elicitation: { url: {} } } },
    );
    const asked: Array<{ mode?: string; url?: string; message: string }> = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as { mode?: string; url?: string; message: string };
      asked.push(params);
      const page = await signInThrough(new SignInBrowser(), String(params.url), 'dave');
      expect(page.html).toContain('for agent asked-agent');
      return { action: 'accept' };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${peers.gateway.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    const reply = (await client.callTool({
      name: 'asked__get_weather',
      arguments: { city: 'Oslo' },
    })) as { isError?: boolean; structuredContent?: unknown };
    await client.close();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      mode: 'url',
      url: expect.stringContaining('/connect/oauth/sign-in?state='),
    });
    expect(reply.isError).toBeFalsy();
    expect(reply.structuredContent).toEqual({ city: 'Oslo', sky: 'sunny' });
  });
});
