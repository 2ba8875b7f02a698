/**
 * A server that moves to another authorization server (scenario
 * `auth/authorization-server-migration`), with two oidc-provider instances
 * on loopback: the old tokens stop working, so after one refresh whose
 * token is refused too the connection is `sign_in_required` (no loop); the
 * operator's next sign-in discovers the new issuer, registers a new client
 * there (the old one is bound to the old issuer and is not reused), and
 * calls go through with the new tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionViews } from '../../../../../runtime/core/operator/connection-views.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { signIn } from '../../../../../runtime/core/operator/remote-sign-in.ts';
import {
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../../support/gateway.ts';
import {
  type OAuthUpstream,
  startOAuthUpstream,
} from '../../../../support/remote/oauth-upstream.ts';
import { SignInBrowser, signInThrough } from '../../../../support/remote/sign-in-browser.ts';
import { connectSignedIn } from '../../../../support/remote/signed-in.ts';

const DEV = { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' };

let gateway: TestGateway;
let ctx: OperatorContext;
let upstream: OAuthUpstream;
let next: OAuthUpstream;

beforeAll(async () => {
  [gateway, upstream, next] = await Promise.all([
    startTestGateway({ environment: DEV }),
    startOAuthUpstream({ tenant: 'old' }),
    startOAuthUpstream({ tenant: 'new' }),
  ]);
  ctx = gateway.running.gateway.operator('test');
});
afterAll(async () => {
  await Promise.all([gateway?.close(), upstream?.close(), next?.close()]);
});

describe('moving to another authorization server', () => {
  it('asks for a sign-in once, then signs in at the new issuer with a new client', async () => {
    const { connectionId, key } = await connectSignedIn(ctx, upstream, 'moving');
    const workspaceId = (await ctx.store.workspaces.byName('default'))!.id;
    const oldClient = await gateway.running.gateway.upstreamSignIn
      .clients(workspaceId, connectionId)
      .load();
    upstream.moveTo(next);

    const agent = await mcpClient(gateway.url, key);
    const before = upstream.refreshes.length;
    const refused = await callTool(agent, 'moving__get_weather', { city: 'Oslo' });
    const again = await callTool(agent, 'moving__get_weather', { city: 'Oslo' });
    expect(refused.structuredContent?.error).toMatchObject({
      code: 'oauth_sign_in_required',
      detail: { reason: 'token_refused' },
    });
    expect(again.structuredContent?.error?.code).toBe('oauth_sign_in_required');
    expect(upstream.refreshes.length - before).toBe(1);
    const [view] = (await connectionViews(ctx, { workspace: 'default' })).filter(
      (v) => v.name === 'moving',
    );
    expect(view?.remote?.signIn).toMatchObject({
      state: 'sign_in_required',
      reason: 'token_refused',
    });

    const started = await signIn(ctx, { workspace: 'default', connection: 'moving' });
    expect(started.host).toBe(new URL(next.issuer).host);
    expect(next.registrations).toHaveLength(1);
    const newClient = await gateway.running.gateway.upstreamSignIn
      .clients(workspaceId, connectionId)
      .load();
    expect(newClient?.binding.issuer).toBe(next.issuer);
    expect(newClient?.clientId).not.toBe(oldClient?.clientId);
    const page = await signInThrough(new SignInBrowser(), started.link);
    expect(page.html).toContain('<h1>Connected</h1>');

    const through = await callTool(agent, 'moving__get_weather', { city: 'Oslo' });
    await agent.close();
    expect(through.isError).toBeFalsy();
    expect(through.structuredContent).toEqual({ city: 'Oslo', sky: 'sunny' });
  });
});
