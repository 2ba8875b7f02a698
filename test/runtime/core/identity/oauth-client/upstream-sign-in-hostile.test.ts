/**
 * Sign-in abuse, against oidc-provider on loopback: a callback replayed, a
 * link or callback carried to another operator's browser, a state nobody
 * issued; each refused with `oauth_state_invalid` and nothing stored. And a
 * secret canary in the deployment's preconfigured client secret, with the
 * real access and refresh tokens, that never shows up in the operator's
 * log, the audit log, an API reply, a command's output, an error, or the
 * database file in the clear.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLog } from '../../../../../runtime/compose/log.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import { signIn } from '../../../../../runtime/core/operator/remote-sign-in.ts';
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
import {
  authorizeAt,
  continueLink,
  SignInBrowser,
} from '../../../../support/remote/sign-in-browser.ts';
import { connectSignedIn, expireStoredTokens } from '../../../../support/remote/signed-in.ts';
import { runPortcullisHere } from '../../../../support/run-cli.ts';

const CANARY = 'canary-secret-5c1e2f9a7b3d';
const DEV = {
  PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
  PORTCULLIS_TOOL_OAUTH_CANARY_CLIENT_ID: 'preconfigured-client',
  PORTCULLIS_TOOL_OAUTH_CANARY_CLIENT_SECRET: CANARY,
};
const logged: string[] = [];

let gateway: TestGateway;
let ctx: OperatorContext;
let upstream: OAuthUpstream;

beforeAll(async () => {
  gateway = await startTestGateway({
    environment: DEV,
    log: createLog({ level: 'debug', destination: { write: (line: string) => logged.push(line) } }),
  });
  upstream = await startOAuthUpstream({
    tenant: 'hostile',
    clients: [
      {
        client_id: 'preconfigured-client',
        client_secret: CANARY,
        redirect_uris: [`${gateway.url}/connect/oauth/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
  });
  ctx = gateway.running.gateway.operator('test');
});
afterAll(async () => {
  await Promise.all([gateway?.close(), upstream?.close()]);
});

async function started(name: string, by: OperatorContext = ctx) {
  await connectUrl(by, { workspace: 'default', url: upstream.mcp.url, name });
  return signIn(by, { workspace: 'default', connection: name });
}

function refusedWith(page: { status: number; html: string }, code: string) {
  expect(page.status).toBe(400);
  expect(page.html).toContain(`(${code})`);
  expect(page.html).not.toContain('<h1>Connected</h1>');
}

describe('a link opened in a second browser', () => {
  it.each([
    ['the command line', { actor: 'cli', name: 'from-cli', want: true }],
    ['the admin API', { actor: 'admin-token-1', name: 'from-api', want: false }],
  ])(
    'started from %s, tells whether to run the sign-in again',
    async (_name, { actor, name, want }) => {
      const { link } = await started(name, gateway.running.gateway.operator(actor));
      await new SignInBrowser().go(link);
      const second = await new SignInBrowser().go(link);
      refusedWith(second, 'oauth_state_invalid');
      expect(second.html.includes(`run portcullis connection sign-in ${name} again`)).toBe(want);
    },
  );
});

describe('sign-in abuse', () => {
  it('refuses a callback replayed', async () => {
    const { link } = await started('replayed');
    const browser = new SignInBrowser();
    const before = await browser.go(link);
    const callback = await authorizeAt(browser, continueLink(before));
    expect((await browser.go(callback)).html).toContain('<h1>Connected</h1>');
    refusedWith(await browser.go(callback), 'oauth_state_invalid');
  });

  it("refuses a link and a callback carried to another operator's browser, and still lets the first finish", async () => {
    const { link } = await started('carried');
    const first = new SignInBrowser();
    const other = new SignInBrowser();
    const before = await first.go(link);
    refusedWith(await other.go(link), 'oauth_state_invalid');
    const callback = await authorizeAt(first, continueLink(before));
    refusedWith(await other.go(callback), 'oauth_state_invalid');
    const tokens = await ctx.store.upstreamOAuth.tokens.forConnection(
      (await ctx.store.connections.byName(
        (await ctx.store.workspaces.byName('default'))!.id,
        'carried',
      ))!.id,
    );
    expect(tokens).toEqual([]);
    expect((await first.go(callback)).html).toContain('<h1>Connected</h1>');
  });

  it('refuses a state nobody issued, and a reply without one', async () => {
    const browser = new SignInBrowser();
    refusedWith(
      await browser.go(`${gateway.url}/connect/oauth/callback?code=x&state=forged`),
      'oauth_state_invalid',
    );
    refusedWith(
      await browser.go(`${gateway.url}/connect/oauth/callback?code=x`),
      'oauth_state_invalid',
    );
    refusedWith(
      await browser.go(`${gateway.url}/connect/oauth/sign-in?state=forged`),
      'oauth_state_invalid',
    );
  });
});

describe('secrets', () => {
  it('never shows the client secret or the tokens anywhere', async () => {
    const { connectionId, key } = await connectSignedIn(ctx, upstream, 'canary');
    const client = await gateway.running.gateway.upstreamSignIn
      .clients((await ctx.store.workspaces.byName('default'))!.id, connectionId)
      .load();
    expect(client).toMatchObject({ source: 'preconfigured', clientId: 'preconfigured-client' });
    const workspaceId = (await ctx.store.workspaces.byName('default'))!.id;
    const tokens = (await gateway.running.gateway.upstreamSignIn
      .tokens(workspaceId, connectionId, null)
      .load())!;
    const secrets = [CANARY, tokens.accessToken, tokens.refreshToken!];

    // A call, a refresh (the secret authenticates it), then a refused refresh: their errors too.
    const agent = await mcpClient(gateway.url, key);
    const replies = [await callTool(agent, 'canary__get_weather', { city: 'Oslo' })];
    await expireStoredTokens(gateway.running.gateway, connectionId);
    replies.push(await callTool(agent, 'canary__get_weather', { city: 'Oslo' }));
    expect(upstream.refreshes.at(-1)).toBe('ok');
    // The refresh token is revoked at the server behind Portcullis's back.
    const revoked = await fetch(`${upstream.issuer}/token/revocation`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`preconfigured-client:${CANARY}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        token: (await gateway.running.gateway.upstreamSignIn
          .tokens(workspaceId, connectionId, null)
          .load())!.refreshToken!,
      }),
    });
    expect(revoked.status).toBe(200);
    await expireStoredTokens(gateway.running.gateway, connectionId);
    replies.push(await callTool(agent, 'canary__get_weather', { city: 'Oslo' }));
    await agent.close();
    expect(replies.at(-1)?.structuredContent?.error?.code).toBe('oauth_sign_in_required');

    const admin = adminClient(gateway.url, gateway.adminToken!);
    const views = await admin('GET', '/workspaces/default/connections');
    const audit = await admin('GET', '/audit?limit=500');
    const cli = await runPortcullisHere(['connections'], {
      ...DEV,
      PORTCULLIS_DATA_DIR: gateway.dataDir,
    });
    const database = readdirSync(gateway.dataDir)
      .filter((file) => file.startsWith('portcullis.sqlite'))
      .map((file) => readFileSync(join(gateway.dataDir, file)).toString('latin1'))
      .join('');
    const seen = [
      ...logged,
      views.text,
      audit.text,
      cli.stdout,
      cli.stderr,
      JSON.stringify(replies),
      database,
    ].join('\n');
    expect(views.text).toContain('sign_in_required');
    for (const secret of secrets) {
      expect(seen).not.toContain(secret);
      expect(seen).not.toContain(Buffer.from(secret).toString('base64'));
      expect(seen).not.toContain(encodeURIComponent(secret));
    }
  });
});
