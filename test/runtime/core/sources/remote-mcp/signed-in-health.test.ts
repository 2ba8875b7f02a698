/**
 * The background probe of a signed-in connection, against oidc-provider in
 * front of an SDK v2 server that verifies every access token: a connection
 * driven into error recovers by the probe alone, the probe's requests
 * carrying the shared access token (the server verified them); expired
 * tokens are refreshed by the probe through the one single-flight refresh;
 * a refused refresh token leaves the connection in `sign_in_required` and
 * the probe sends nothing more until a person signs in; a connection whose
 * agents sign in themselves is probed bare, its Bearer challenge counting as
 * an answer. And a refresh replaces the upstream session: over N refreshes
 * the live entries stay as many, each old session ended upstream.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { connectionViews } from '../../../../../runtime/core/operator/connection-views.ts';
import { signIn, signOut } from '../../../../../runtime/core/operator/remote-sign-in.ts';
import { callTool, mcpClient } from '../../../../support/gateway.ts';
import { manualProbe } from '../../../../support/remote/manual-probe.ts';
import { SignInBrowser, signInThrough } from '../../../../support/remote/sign-in-browser.ts';
import {
  connectSignedIn,
  expireStoredTokens,
  useSignInPeers,
} from '../../../../support/remote/signed-in.ts';

const peers = useSignInPeers({ tenant: 'health', kind: 'stateful' });

const health = async (connectionId: string) =>
  (await peers.ctx.store.connections.all()).find((c) => c.id === connectionId)!.health;
const inError = (connectionId: string) =>
  peers.ctx.store.connections.recordHealth(connectionId, 'error', 5, new Date().toISOString());
/** Back to ok, so the next test's probe rounds touch only its own connection. */
const settle = (connectionId: string) =>
  peers.ctx.store.connections.recordHealth(connectionId, 'ok', 0, new Date().toISOString());
/** Requests to the MCP endpoint that reached the server since `from`. */
const mcpRequestsSince = (from: number): Array<IncomingMessage['headers']> =>
  peers.upstream.mcp.seenHeaders.slice(from);

describe('the background probe of a signed-in connection', () => {
  it('recovers a connection driven into error by the probe alone, with the shared access token', async () => {
    const { connectionId, key } = await connectSignedIn(peers.ctx, peers.upstream, 'outage');
    const agent = await mcpClient(peers.gateway.url, key);
    expect((await callTool(agent, 'outage__get_weather', { city: 'Oslo' })).isError).toBeFalsy();
    peers.upstream.setDown(true);
    for (let i = 0; i < 5; i++)
      expect((await callTool(agent, 'outage__get_weather', { city: 'Oslo' })).isError).toBe(true);
    await agent.close();
    expect(await health(connectionId)).toBe('error');
    peers.upstream.setDown(false);

    const seen = peers.upstream.mcp.seenHeaders.length;
    const accepted = peers.upstream.accepted.length;
    await manualProbe(peers.ctx).check();
    expect(await health(connectionId)).toBe('ok');
    // Every probe request carried a Bearer token, and the server verified them (signature, audience).
    const probed = mcpRequestsSince(seen);
    expect(probed.length).toBeGreaterThan(0);
    expect(probed.map((h) => /^Bearer ey/.test(h.authorization ?? ''))).toEqual(
      probed.map(() => true),
    );
    expect(peers.upstream.accepted.length - accepted).toBe(probed.length);
  });

  it('refreshes expired tokens through the one single-flight refresh, shared with a call', async () => {
    const { connectionId, key } = await connectSignedIn(peers.ctx, peers.upstream, 'expiring');
    const agent = await mcpClient(peers.gateway.url, key);
    expect((await callTool(agent, 'expiring__get_weather', { city: 'Oslo' })).isError).toBeFalsy();
    await inError(connectionId);
    await expireStoredTokens(peers.gateway.running.gateway, connectionId);
    const before = peers.upstream.refreshes.length;
    const [, reply] = await Promise.all([
      manualProbe(peers.ctx).check(),
      callTool(agent, 'expiring__get_weather', { city: 'Bergen' }),
    ]);
    await agent.close();
    expect(reply.isError).toBeFalsy();
    expect(peers.upstream.refreshes.slice(before)).toEqual(['ok']);
    expect(await health(connectionId)).toBe('ok');
  });

  it('stops at sign_in_required when its refresh is refused, sends nothing more, and recovers after a sign-in', async () => {
    const { connectionId } = await connectSignedIn(peers.ctx, peers.upstream, 'refused');
    const gateway = peers.gateway.running.gateway;
    const workspaceId = (await peers.ctx.store.connections.all()).find(
      (c) => c.id === connectionId,
    )!.workspaceId;
    const tokens = (await gateway.upstreamSignIn.tokens(workspaceId, connectionId, null).load())!;
    const client = (await gateway.upstreamSignIn.clients(workspaceId, connectionId).load())!;
    // Someone else uses the refresh token first: the server rotates it (reuse detection).
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
    await expireStoredTokens(gateway, connectionId);
    await inError(connectionId);

    let clock = Date.now();
    const probe = manualProbe(peers.ctx, { now: () => new Date(clock) });
    const before = peers.upstream.refreshes.length;
    await probe.check();
    expect(peers.upstream.refreshes.slice(before)).toEqual(['invalid_grant']);
    const [view] = (await connectionViews(peers.ctx, { workspace: 'default' })).filter(
      (v) => v.name === 'refused',
    );
    expect(view?.remote?.signIn).toMatchObject({
      state: 'sign_in_required',
      reason: 'invalid_grant',
    });
    // Round after round (past every backoff), nothing goes to either server.
    const seen = peers.upstream.mcp.seenHeaders.length;
    for (let round = 0; round < 3; round++) {
      clock += 11 * 60_000;
      await probe.check();
    }
    expect(mcpRequestsSince(seen)).toEqual([]);
    expect(peers.upstream.refreshes.slice(before)).toEqual(['invalid_grant']);
    expect(await health(connectionId)).toBe('error');

    // A person signs in again: the next round probes with the new token and it recovers.
    const started = await signIn(peers.ctx, { workspace: 'default', connection: 'refused' });
    const page = await signInThrough(new SignInBrowser(), started.link);
    expect(page.html).toContain('<h1>Connected</h1>');
    clock += 11 * 60_000;
    await probe.check();
    expect(await health(connectionId)).toBe('ok');
  });

  it('probes a connection without a shared sign-in bare: a 401 with its Bearer challenge is an answer', async () => {
    const { connectionId } = await connectSignedIn(peers.ctx, peers.upstream, 'theirs', {
      personal: true,
    });
    // Only the agents' own sign-ins remain.
    await signOut(peers.ctx, { workspace: 'default', connection: 'theirs' });
    await inError(connectionId);
    const seen = peers.upstream.mcp.seenHeaders.length;
    const refreshes = peers.upstream.refreshes.length;
    await manualProbe(peers.ctx).check();
    expect(await health(connectionId)).toBe('ok');
    const probed = mcpRequestsSince(seen);
    expect(probed.length).toBeGreaterThan(0);
    expect(probed.map((h) => h.authorization)).toEqual(probed.map(() => undefined));
    expect(peers.upstream.refreshes.length).toBe(refreshes);
    await settle(connectionId);
  });
});

describe('the upstream session of a signed-in connection', () => {
  it('is replaced by a refresh: over N refreshes the live entries stay as many, each old one ended upstream', async () => {
    const { connectionId, key } = await connectSignedIn(peers.ctx, peers.upstream, 'rotating');
    const sessions = peers.ctx.remote!.sessions;
    const agent = await mcpClient(peers.gateway.url, key);
    const call = async () => {
      const reply = await callTool(agent, 'rotating__get_weather', { city: 'Oslo' });
      expect(reply.isError).toBeFalsy();
      return peers.upstream.mcp.calls.at(-1)!.sessionId!;
    };
    let last = await call();
    const live = sessions.size;
    const before = peers.upstream.refreshes.length;
    for (let refresh = 0; refresh < 3; refresh++) {
      await expireStoredTokens(peers.gateway.running.gateway, connectionId);
      const now = await call();
      expect(now).not.toBe(last);
      // The old session is ended at the server (a DELETE, with the token it was opened with).
      await expect.poll(() => peers.upstream.mcp.ended, { timeout: 10_000 }).toContain(last);
      expect(sessions.size).toBe(live);
      last = now;
    }
    await agent.close();
    expect(peers.upstream.refreshes.slice(before)).toEqual(['ok', 'ok', 'ok']);
    expect(sessions.retiring).toBe(0);
  });
});
