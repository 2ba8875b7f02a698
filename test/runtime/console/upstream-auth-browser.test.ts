/**
 * A connection's page in Debian's Chromium says how the connection
 * authenticates at its upstream's authorization server (`connection auth`):
 * the workspace's own client for the shared credential, members' calls on
 * their behalf with the audience asked for, the audience (the operator's
 * text) and the issuer (the remote side's) inert; then members' calls by
 * an ID-JAG of the company's IdP, its name shown. oidc-provider as that
 * authorization server (client credentials) and as the company IdP, an SDK
 * v2 server behind it.
 * Axe-core and screenshots at 1280 and 375 px.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addIdentityProvider } from '../../../runtime/core/operator/identity-providers.ts';
import { setConnectionAuth } from '../../../runtime/core/operator/remote-auth.ts';
import { connectUrl } from '../../../runtime/core/operator/remote-connections.ts';
import { HAS_CHROMIUM, launchChromium } from '../../support/chromium.ts';
import { type ConsoleGateway, PEOPLE, startConsoleGateway } from '../../support/console.ts';
import { lookAt } from '../../support/console-look.ts';
import { signedInPage } from '../../support/console-sign-in.ts';
import { type CompanyIdp, startCompanyIdp } from '../../support/identity/company-idp.ts';
import { type OAuthUpstream, startOAuthUpstream } from '../../support/remote/oauth-upstream.ts';

const HOSTILE_AUDIENCE = '<img src=x onerror="document.title=1">api';

let running: ConsoleGateway;
let browser: Browser;
let upstream: OAuthUpstream;
let idp: CompanyIdp | undefined;

beforeAll(async () => {
  [running, browser, upstream] = await Promise.all([
    startConsoleGateway(),
    launchChromium(),
    startOAuthUpstream({
      tenant: 'console',
      registration: false,
      clientCredentials: true,
      clients: [
        {
          client_id: 'portcullis-console',
          client_secret: 'console-client-secret-1b9e',
          grant_types: [
            'client_credentials',
            'urn:ietf:params:oauth:grant-type:token-exchange',
            'urn:ietf:params:oauth:grant-type:jwt-bearer',
          ],
          response_types: [],
          redirect_uris: [],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      // Offered (the page's setting needs it); no member calls here.
      tokenExchange: {
        verify: () => Promise.reject(new Error('no member calls in this test')),
      },
      jwtBearer: {
        verify: () => Promise.reject(new Error('no member calls in this test')),
      },
    }),
  ]);
  const ctx = running.gateway.running.gateway.operator('cli');
  await connectUrl(ctx, { workspace: 'default', url: upstream.mcp.url, name: 'wx' });
  await setConnectionAuth(ctx, {
    workspace: 'default',
    connection: 'wx',
    clientCredentials: 'client_secret_basic',
    clientId: 'portcullis-console',
    clientSecret: 'console-client-secret-1b9e',
    onBehalfOf: 'id_token',
    audience: HOSTILE_AUDIENCE,
  });
});
afterAll(async () => {
  await browser?.close();
  await running?.close();
  await upstream?.close();
  await idp?.close();
});

describe.skipIf(!HAS_CHROMIUM)("a connection's page in Chromium", { timeout: 240_000 }, () => {
  it('says how the connection authenticates upstream, its text inert', async () => {
    const page = await signedInPage(browser, running.url, PEOPLE.owner, {
      fragment: '/connections/wx',
    });
    const auth = page.locator('dl.upstream-auth');
    await auth.waitFor();
    const text = (await auth.textContent()) ?? '';
    expect(text).toContain(upstream.issuer);
    expect(text).toContain("the workspace's own client (client credentials, client_secret_basic)");
    expect(text).toContain("on the member's behalf: a token exchanged for their ID token");
    expect(text).toContain(HOSTILE_AUDIENCE);
    expect(await auth.locator('img').count()).toBe(0);
    expect(await page.title()).not.toBe('1');
    expect(await page.content()).not.toContain('console-client-secret-1b9e');
    await lookAt(page, 'console-connection-auth');
    await page.close();
  });

  it("says members' calls carry an ID-JAG of the company's IdP, naming it", async () => {
    idp = await startCompanyIdp({
      tenant: 'acme',
      redirectUri: `${running.url}/sign-in/idp/callback`,
      people: {},
    });
    const ctx = running.gateway.running.gateway.operator('cli');
    await addIdentityProvider(
      ctx,
      {
        workspace: 'default',
        name: 'acme',
        issuer: idp.issuer,
        clientId: idp.clientId,
        clientSecretEnv: 'PORTCULLIS_IDP_ACME_SECRET',
      },
      running.url,
    );
    await setConnectionAuth(ctx, {
      workspace: 'default',
      connection: 'wx',
      clientId: 'portcullis-console',
      clientSecret: 'console-client-secret-1b9e',
      idJag: 'acme',
    });
    const page = await signedInPage(browser, running.url, PEOPLE.owner, {
      fragment: '/connections/wx',
    });
    const auth = page.locator('dl.upstream-auth');
    await auth.waitFor();
    expect((await auth.textContent()) ?? '').toContain(
      "on the member's behalf: a token redeemed for an ID-JAG that acme issues for their ID token",
    );
    expect(await page.content()).not.toContain('console-client-secret-1b9e');
    await lookAt(page, 'console-connection-auth-id-jag');
    await page.close();
  });
});
