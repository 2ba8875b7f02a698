/**
 * Signing in with the company's IdP in Debian's Chromium: the console's
 * sign-in page offers "Sign in with acme" beside the password, the link goes
 * through oidc-provider's login and consent and back into the console as
 * the member the IdP signed in (made on this first sign-in, an operator by
 * their group), whose role and grant the members page says their groups gave;
 * the consent page offers the same button, and the IdP's answer lands on
 * its review step, then Approve sends the client its code. Each page
 * checked by axe-core and kept as screenshots at 1280 and 375 px.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapGroup } from '../../../runtime/core/operator/identity-groups.ts';
import { addIdentityProvider } from '../../../runtime/core/operator/identity-providers.ts';
import { HAS_CHROMIUM, launchChromium } from '../../support/chromium.ts';
import { builtConsole } from '../../support/console-build.ts';
import { lookAt } from '../../support/console-look.ts';
import type { TestGateway } from '../../support/gateway.ts';
import { type CompanyIdp, startCompanyIdp } from '../../support/identity/company-idp.ts';
import { startOAuthGateway } from '../../support/oauth/oauth-gateway.ts';
import { authorizeUrl, pkce, registerClient } from '../../support/oauth/raw-flow.ts';

const SECRET = 'company-secret-acme-7f3a9c2e5b';

let gateway: TestGateway;
let acme: CompanyIdp;
let browser: Browser;

beforeAll(async () => {
  gateway = (
    await startOAuthGateway({
      environment: {
        PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
        PORTCULLIS_IDP_ACME_SECRET: SECRET,
      },
      consoleAssets: await builtConsole(),
    })
  ).gateway;
  acme = await startCompanyIdp({
    tenant: 'acme',
    redirectUri: `${gateway.url}/sign-in/idp/callback`,
    people: {
      carol: { preferred_username: 'carol', email: 'carol@example.com', groups: ['ops', 'eng'] },
    },
    clientSecret: SECRET,
  });
  const ctx = gateway.running.gateway.operator('test');
  await addIdentityProvider(
    ctx,
    {
      workspace: 'default',
      name: 'acme',
      issuer: acme.issuer,
      clientId: acme.clientId,
      clientSecretEnv: 'PORTCULLIS_IDP_ACME_SECRET',
      groupsClaim: 'groups',
      scopes: 'openid profile email groups',
    },
    gateway.url,
  );
  // carol's groups make her an operator and grant her unikraft.
  await mapGroup(ctx, { workspace: 'default', provider: 'acme', group: 'ops', role: 'operator' });
  await mapGroup(ctx, {
    workspace: 'default',
    provider: 'acme',
    group: 'eng',
    connection: 'unikraft',
  });
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
    // The members page says which of carol's role and grants her groups gave.
    await page.goto(`${gateway.url}/console#/members`);
    const carol = page.locator('tr[data-member=carol]');
    await carol.getByText('from the group ops at acme').waitFor();
    await expect(carol.textContent()).resolves.toContain(
      'Granted unikraft by the group eng at acme',
    );
    await lookAt(page, 'console-members-idp-origins');

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
