/**
 * Signing Portcullis in to a remote MCP server, against real peers on
 * loopback: oidc-provider at a path-bearing issuer (DCR, PKCE, resource
 * indicators, rotation with reuse detection, `iss` in the response) in front
 * of an SDK v2 MCP server that verifies its JWT access tokens. The link the
 * `portcullis connection sign-in` command prints leads, through Portcullis's
 * own page and the provider's login and consent, to the callback page; the
 * draft is then connected, and calls carry the access token as Bearer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeActions } from '../../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import { connectionViews } from '../../../../../runtime/core/operator/connection-views.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
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
import { runPortcullisHere } from '../../../../support/run-cli.ts';

const DEV = { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' };

let gateway: TestGateway;
let ctx: OperatorContext;
let upstream: OAuthUpstream;

/** The `portcullis` command on the gateway's own store, its public URL the gateway's. */
function cli(args: string[]) {
  return runPortcullisHere(args, {
    ...DEV,
    PORTCULLIS_DATA_DIR: gateway.dataDir,
    PORTCULLIS_PUBLIC_URL: gateway.url,
  });
}

beforeAll(async () => {
  [gateway, upstream] = await Promise.all([
    startTestGateway({ environment: DEV }),
    startOAuthUpstream({ tenant: 'a' }),
  ]);
  ctx = gateway.running.gateway.operator('test');
});
afterAll(async () => {
  await Promise.all([gateway?.close(), upstream?.close()]);
});

/** The link `portcullis connection sign-in <name>` printed, and a browser following it to the end. */
async function signIn(name: string) {
  const printed = await cli(['connection', 'sign-in', name]);
  const link = /(http:\/\/\S+\/connect\/oauth\/sign-in\?state=\S+)/.exec(printed.stdout)?.[1];
  expect(link).toBeDefined();
  const browser = new SignInBrowser();
  const before = await browser.go(link!);
  const done = await signInThrough(browser, link!);
  return { printed, before, done };
}

describe('signing in to a remote MCP server', () => {
  it('keeps a draft with what discovery found, and registers nothing before the sign-in', async () => {
    const registered = upstream.registrations.length;
    const result = await connectUrl(ctx, {
      workspace: 'default',
      url: upstream.mcp.url,
      name: 'drafted',
    });
    expect(result.next).toBe('sign_in');
    expect(result.endpoint).toMatchObject({
      authKind: 'oauth',
      draft: 'sign_in_needed',
      oauth: {
        issuer: upstream.issuer,
        resource: upstream.mcp.url,
        scopes: expect.arrayContaining(['mcp:tools']),
      },
    });
    expect(upstream.registrations).toHaveLength(registered);
  });

  it('prints a link naming the host, and the link leads to the connected page', async () => {
    await connectUrl(ctx, { workspace: 'default', url: upstream.mcp.url, name: 'signed' });
    const registered = upstream.registrations.length;
    const { printed, before, done } = await signIn('signed');
    expect(printed.stderr).toBe('');
    expect(printed.code).toBe(0);
    const host = new URL(upstream.issuer).host;
    expect(printed.stdout).toContain(`sends you to ${host}`);
    expect(printed.stdout).toContain(`unverified server: ${new URL(upstream.mcp.url).host}`);
    expect(upstream.registrations).toHaveLength(registered + 1);

    expect(before.status).toBe(200);
    expect(before.html).toContain(`You are being sent to <span class="host">${host}</span>`);
    expect(before.html).toContain('Unverified server');
    expect(done.status).toBe(200);
    expect(done.html).toContain('<h1>Connected</h1>');
    expect(done.html).toContain('3 tools were discovered');

    const [view] = (await connectionViews(ctx, { workspace: 'default' })).filter(
      (v) => v.name === 'signed',
    );
    expect(view).toMatchObject({
      status: 'active',
      remote: { draft: null, signIn: { state: 'signed_in' } },
    });
  });

  it('sends the access token as Bearer, which the server verifies', async () => {
    // A connection of its own, signed in.
    await connectUrl(ctx, { workspace: 'default', url: upstream.mcp.url, name: 'bearer' });
    expect((await signIn('bearer')).done.status).toBe(200);
    await changeActions(ctx, 'review', { workspace: 'default', connection: 'bearer', all: true });
    const { key } = await createAgent(ctx, { workspace: 'default', name: 'signed-agent' });
    await grant(ctx, {
      workspace: 'default',
      agent: 'signed-agent',
      connection: 'bearer',
      scope: 'all',
    });
    const client = await mcpClient(gateway.url, key);
    const before = upstream.accepted.length;
    const reply = await callTool(client, 'bearer__get_weather', { city: 'Oslo' });
    await client.close();
    expect(reply.isError).toBeFalsy();
    expect(reply.structuredContent).toEqual({ city: 'Oslo', sky: 'sunny' });
    expect(upstream.accepted.length).toBeGreaterThan(before);
  });
});
