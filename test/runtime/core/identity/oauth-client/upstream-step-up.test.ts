/**
 * Scope step-up (scenario `auth/scope-step-up`) against oidc-provider and an
 * SDK v2 server that wants one more scope for one tool: its `403
 * insufficient_scope` fails the call with `oauth_scope_insufficient` naming
 * the wider scope, without a refresh or a loop; the connection keeps that
 * scope, so the operator's next sign-in asks for it, and the call then goes
 * through.
 */
import { describe, expect, it } from 'vitest';
import { changeActions } from '../../../../../runtime/core/operator/actions.ts';
import { signIn } from '../../../../../runtime/core/operator/remote-sign-in.ts';
import { callTool, mcpClient } from '../../../../support/gateway.ts';
import {
  authorizeAt,
  continueLink,
  SignInBrowser,
} from '../../../../support/remote/sign-in-browser.ts';
import { connectSignedIn, useSignInPeers } from '../../../../support/remote/signed-in.ts';

const peers = useSignInPeers({
  tenant: 'step',
  stepUp: { tool: 'delete_item', scope: 'mcp:admin' },
});

describe('scope step-up', () => {
  it('asks for the wider scope at the next sign-in, then the call goes through', async () => {
    const { connectionId, key } = await connectSignedIn(peers.ctx, peers.upstream, 'narrow');
    await changeActions(peers.ctx, 'enable', {
      workspace: 'default',
      connection: 'narrow',
      actions: ['delete_item'],
    });
    const agent = await mcpClient(peers.gateway.url, key);
    const refreshes = peers.upstream.refreshes.length;
    const refused = await callTool(agent, 'narrow__delete_item', { id: '7' });
    expect(refused.structuredContent?.error).toMatchObject({
      code: 'oauth_scope_insufficient',
      detail: { scope: expect.stringContaining('mcp:admin') },
    });
    expect(peers.upstream.refreshes.length).toBe(refreshes);
    const endpoint = await peers.ctx.store.remoteEndpoints.byConnection(connectionId);
    expect(endpoint?.oauth?.scopes).toContain('mcp:admin');
    // Other tools keep working with the narrower sign-in.
    expect((await callTool(agent, 'narrow__get_weather', { city: 'Oslo' })).isError).toBeFalsy();

    const started = await signIn(peers.ctx, { workspace: 'default', connection: 'narrow' });
    const browser = new SignInBrowser();
    const authorization = continueLink(await browser.go(started.link));
    expect(new URL(authorization).searchParams.get('scope')?.split(' ')).toContain('mcp:admin');
    const page = await browser.go(await authorizeAt(browser, authorization));
    expect(page.html).toContain('<h1>Connected</h1>');
    const through = await callTool(agent, 'narrow__delete_item', { id: '7' });
    await agent.close();
    expect(through.isError).toBeFalsy();
    expect(through.content[0]?.text).toBe('deleted 7');
  });
});
