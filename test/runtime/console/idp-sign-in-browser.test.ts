/**
 * Signing in with the company's IdP in Debian's Chromium: the console's
 * sign-in page offers "Sign in with acme" beside the password, the link goes
 * through oidc-provider's login and consent and back into the console as
 * the member the IdP signed in (an operator, made on this first sign-in);
 * the consent page offers the same button, and the IdP's answer lands on
 * its review step, then Approve sends the client its code. Each page
 * checked by axe-core and kept as screenshots at 1280 and 375 px.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addIdentityProvider } from '../../../runtime/core/operator/identity-providers.ts';
import { HAS_CHROMIUM, launchChromium } from '../../support/chromium.ts';
import { builtConsole } from '../../support/console-build.ts';
import { lookAt } from '../../support/console-look.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { type CompanyIdp, startCompanyIdp } from '../../support/identity/company-idp.ts';
import { authorizeUrl, pkce, registerClient } from '../../support/oauth/raw-flow.ts';

const SECRET = 'company-secret-acme-7f3a9c2e5b';

let gateway: TestGateway;
let acme: CompanyIdp;
let browser: Browser;

beforeAll(async () => {
  gateway = await startTestGateway({
    environment: {
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
      PORTCULLIS_IDP_ACME_SECRET: SECRET,
    },
    consoleAssets: await builtConsole(),
  });
  acme = await startCompanyIdp({
    tenant: 'acme',
    redirectUri: `${gateway.url}/sign-in/idp/callback`,
    people: { carol: { preferred_username: 'carol', email: 'carol@example.com' } },
    clientSecret: SECRET,
  });
  await addIdentityProvider(
    gateway.running.gateway.operator('test'),
    {
      workspace: 'default',
      name: 'acme',
      issuer: acme.issuer,
      clientId: acme.clientId,
      clientSecretEnv: 'PORTCULLIS_IDP_ACME_SECRET',
      role: 'operator',
    },
    gateway.url,
  );
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await acme?.close();
});

/** Through oidc-provider's own pages (login, then consent) until the browser leaves them. */
async function throughIdp(page: Page, person: string): Promise<void> {
  const idp = new URL(acme.issuer).origin;
  for (let step = 0; step < 4 && page.url().startsWith(idp); step++) {
    const login = page.locator('input[name=login]');
    if (await login.count()) {
      await login.fill(person);
      await page.fill('input[name=password]', 'any');
    }
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  }
}

describe.skipIf(!HAS_CHROMIUM)('the IdP sign-in in Chromium', () => {
  it('goes from the console sign-in through the IdP into the console, then through the consent page', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${gateway.url}/console`);
    const button = page.getByRole('link', { name: 'Sign in with acme' });
    await button.waitFor();
    await expect(page.getByLabel('Password').count()).resolves.toBe(1);
    await lookAt(page, 'console-idp-sign-in');
    await Promise.all([page.waitForNavigation(), button.click()]);
    expect(page.url().startsWith(acme.issuer)).toBe(true);
    await throughIdp(page, 'carol');
    await page.getByRole('navigation', { name: 'Console' }).waitFor();
    await expect(page.locator('body').textContent()).resolves.toContain('carol');

    // The consent page, in the same browser: the IdP remembers carol.
    const client = await registerClient(gateway.url);
    const { challenge } = pkce();
    await page.goto(authorizeUrl(gateway.url, client, { code_challenge: challenge }).href);
    const idpButton = page.getByRole('button', { name: 'Sign in with acme' });
    await idpButton.waitFor();
    await lookAt(page, 'consent-idp-sign-in');
    await Promise.all([page.waitForNavigation(), idpButton.click()]);
    await throughIdp(page, 'carol');
    await expect(page.locator('#signed-in').textContent()).resolves.toBe('carol');
    await lookAt(page, 'consent-idp-review');
    // Nothing listens at the client's redirect URI: the request the browser makes to it is enough.
    const [back] = await Promise.all([
      page.waitForRequest((request) => request.url().startsWith(client.redirectUri)),
      page.getByRole('button', { name: 'Approve' }).click(),
    ]);
    expect(new URL(back.url()).searchParams.get('code')).toMatch(/.{20,}/);
    await page.close();
  });
});
