/**
 * A remote connection signed in for a test: connected by URL (a draft that
 * wants a sign-in), signed in by an operator through a browser, every tool
 * reviewed, and an agent granted it. Plus a hand on the stored tokens, to
 * make them look expired without waiting.
 */

import { afterAll, beforeAll } from 'vitest';
import type { Gateway } from '../../../runtime/compose/open-gateway.ts';
import { changeActions } from '../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../runtime/core/operator/context.ts';
import { grant } from '../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../runtime/core/operator/remote-connections.ts';
import { signIn } from '../../../runtime/core/operator/remote-sign-in.ts';
import { startTestGateway, type TestGateway } from '../gateway.ts';
import {
  type OAuthUpstream,
  type OAuthUpstreamOptions,
  startOAuthUpstream,
} from './oauth-upstream.ts';
import { SignInBrowser, signInThrough } from './sign-in-browser.ts';

export interface SignedIn {
  connectionId: string;
  /** The agent's key, granted every tool of the connection. */
  key: string;
  browser: SignInBrowser;
}

export async function connectSignedIn(
  ctx: OperatorContext,
  upstream: OAuthUpstream,
  name: string,
  options: { personal?: boolean } = {},
): Promise<SignedIn> {
  const connected = await connectUrl(ctx, { workspace: 'default', url: upstream.mcp.url, name });
  const browser = new SignInBrowser();
  const started = await signIn(ctx, { workspace: 'default', connection: name });
  const page = await signInThrough(browser, started.link);
  if (!page.html.includes('<h1>Connected</h1>')) throw new Error(`sign-in failed: ${page.html}`);
  await changeActions(ctx, 'review', { workspace: 'default', connection: name, all: true });
  const { key } = await createAgent(ctx, { workspace: 'default', name: `${name}-agent` });
  await grant(ctx, {
    workspace: 'default',
    agent: `${name}-agent`,
    connection: name,
    scope: 'all',
    ...(options.personal ? { credential: 'personal' } : {}),
  });
  return { connectionId: connected.connection.id, key, browser };
}

/** Rewrites the stored tokens as if the access token had expired (the server still takes it). */
export async function expireStoredTokens(
  gateway: Gateway,
  connectionId: string,
  agentId: string | null = null,
): Promise<void> {
  const store = gateway.upstreamSignIn.tokens(
    (await gateway.store.connections.all()).find((c) => c.id === connectionId)!.workspaceId,
    connectionId,
    agentId,
  );
  const tokens = await store.load();
  if (!tokens) throw new Error('no tokens to expire');
  await store.save({ ...tokens, expiresAt: new Date(Date.now() - 60_000).toISOString() });
}

export interface SignInPeers {
  readonly gateway: TestGateway;
  readonly ctx: OperatorContext;
  readonly upstream: OAuthUpstream;
}

/** A gateway (development policy: loopback allowed) and an oidc-provider upstream, for one test file. */
export function useSignInPeers(options: OAuthUpstreamOptions = {}): SignInPeers {
  let gateway: TestGateway | undefined;
  let upstream: OAuthUpstream | undefined;
  beforeAll(async () => {
    [gateway, upstream] = await Promise.all([
      startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
      startOAuthUpstream(options),
    ]);
  });
  afterAll(async () => {
    await Promise.all([gateway?.close(), upstream?.close()]);
  });
  return {
    get gateway() {
      return gateway!;
    },
    get ctx() {
      return gateway!.running.gateway.operator('test');
    },
    get upstream() {
      return upstream!;
    },
  };
}
