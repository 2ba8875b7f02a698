/**
 * The consent page in a real browser: Debian's Chromium driven by
 * playwright-core. A person signs in and approves (and lands back on the
 * client with a code, through the page's own CSP), denies (and the client
 * gets access_denied), types a wrong password (and is told so, on the same
 * page), and does it all by keyboard alone. The page runs no script and
 * loads nothing from elsewhere. Afterwards the member revokes the app on
 * their own page, `/oauth/consents`. A screenshot is kept in artifacts/ (not
 * committed) for a person to look at.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchChromium } from '../../../../support/chromium.ts';
import { ROOT } from '../../../../support/fixtures.ts';
import {
  MEMBER,
  type OAuthGateway,
  startOAuthGateway,
} from '../../../../support/oauth/oauth-gateway.ts';
import {
  authorizeUrl,
  pkce,
  type RegisteredTestClient,
  registerClient,
} from '../../../../support/oauth/raw-flow.ts';

const ARTIFACTS = join(ROOT, 'artifacts');

let running: OAuthGateway;
let browser: Browser;
let callback: Server;
let client: RegisteredTestClient;

beforeAll(async () => {
  running = await startOAuthGateway();
  callback = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>client</title><p>back at the client</p>');
  });
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  client = await registerClient(
    running.url,
    `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`,
  );
  // Playwright gives the browser a fresh, empty profile folder of its own.
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => callback?.close(resolve));
  await running?.close();
});

/** A page on a fresh authorize request, with every request it makes noted. */
async function consentPage(): Promise<{ page: Page; requested: string[] }> {
  const page = await browser.newPage();
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  await page.goto(
    authorizeUrl(running.url, client, { code_challenge: pkce().challenge, state: 'browser-state' })
      .href,
  );
  return { page, requested };
}

describe.skipIf(!HAS_CHROMIUM)('the consent page in Chromium', () => {
  it('shows the client, its redirect host and each scope in words, and runs no script', async () => {
    const { page, requested } = await consentPage();
    await expect(page.locator('h1').textContent()).resolves.toContain('raw test client');
    await expect(page.locator('main').textContent()).resolves.toContain('127.0.0.1');
    // Each scope a checkbox named in words, checked until the person unchecks it.
    const read = page.getByRole('checkbox', { name: /^Read:/ });
    expect(await read.isChecked()).toBe(true);
    expect(await page.evaluate('document.scripts.length')).toBe(0);
    expect(requested.every((url) => url.startsWith(running.url))).toBe(true);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'consent-page.png'), fullPage: true });
    await page.close();
  });

  it('signs in, approves and lands back on the client with a code, state and iss', async () => {
    const { page } = await consentPage();
    await page.getByLabel('Member name').fill(MEMBER.member);
    await page.getByLabel('Password').fill(MEMBER.password);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.locator('#signed-in').textContent()).resolves.toBe(MEMBER.member);
    await Promise.all([
      page.waitForURL(/\/callback\?/),
      page.getByRole('button', { name: 'Approve' }).click(),
    ]);
    const back = new URL(page.url());
    expect(back.searchParams.get('code')).toMatch(/^pco_/);
    expect(back.searchParams.get('state')).toBe('browser-state');
    expect(back.searchParams.get('iss')).toBe(running.url);
    await page.close();
  });

  it('denies, without a password, and the client gets access_denied', async () => {
    const { page } = await consentPage();
    await Promise.all([
      page.waitForURL(/\/callback\?/),
      page.getByRole('button', { name: 'Deny' }).click(),
    ]);
    const back = new URL(page.url());
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
    await page.close();
  });

  for (const [first, then] of [
    ['Deny', 'Approve'],
    ['Approve', 'Deny'],
  ] as const)
    it(`refuses to ${then.toLowerCase()} a request already ${first === 'Deny' ? 'denied' : 'approved'}: a decided request is spent`, async () => {
      const { page } = await consentPage();
      await page.getByLabel('Member name').fill(MEMBER.member);
      await page.getByLabel('Password').fill(MEMBER.password);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForSelector('#signed-in');
      // The first decision in another tab, so this one keeps the same form (its request, its CSRF token).
      await page.evaluate("document.querySelector('form').target = '_blank'");
      const [decided] = await Promise.all([
        page.context().waitForEvent('page'),
        page.getByRole('button', { name: first }).click(),
      ]);
      await decided.waitForURL(/\/callback\?/);
      const back = new URL(decided.url());
      expect(back.searchParams.get(first === 'Deny' ? 'error' : 'code')).toBeTruthy();
      await page.evaluate("document.querySelector('form').removeAttribute('target')");
      const [reply] = await Promise.all([
        page.waitForResponse((response) => response.request().method() === 'POST'),
        page.getByRole('button', { name: then }).click(),
      ]);
      expect(reply.status()).toBe(409);
      expect(reply.headers().location).toBeUndefined();
      await expect(page.locator('h1').textContent()).resolves.toBe(
        'This request was already answered',
      );
      await expect(page.getByRole('alert').textContent()).resolves.toContain(
        `already ${first === 'Deny' ? 'denied' : 'approved'}`,
      );
      expect(page.url()).not.toMatch(/\/callback/);
      if (first === 'Deny')
        await page.screenshot({
          path: join(ARTIFACTS, 'consent-page-decided.png'),
          fullPage: true,
        });
      await page.context().close();
    });

  it('says the password is wrong, on the same page, keeping the name typed', async () => {
    const { page } = await consentPage();
    await page.getByLabel('Member name').fill(MEMBER.member);
    await page.getByLabel('Password').fill('not the password at all');
    const [reply] = await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'POST'),
      page.getByRole('button', { name: 'Continue' }).click(),
    ]);
    expect(reply.status()).toBe(401);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('wrong');
    expect(await page.getByLabel('Member name').inputValue()).toBe(MEMBER.member);
    expect(await page.getByLabel('Password').inputValue()).toBe('');
    await page.screenshot({
      path: join(ARTIFACTS, 'consent-page-wrong-password.png'),
      fullPage: true,
    });
    await page.close();
  });

  it('works by keyboard alone: the name has focus, Tab to the password, Enter continues, Enter approves', async () => {
    const { page } = await consentPage();
    expect(await page.evaluate('document.activeElement?.id')).toBe('member');
    await page.keyboard.type(MEMBER.member);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.id')).toBe('password');
    await page.keyboard.type(MEMBER.password);
    await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'POST'),
      page.keyboard.press('Enter'),
    ]);
    await page.waitForSelector('#signed-in');
    await page.getByRole('button', { name: 'Approve' }).focus();
    await Promise.all([page.waitForURL(/\/callback\?/), page.keyboard.press('Enter')]);
    expect(new URL(page.url()).searchParams.get('code')).toMatch(/^pco_/);
    await page.close();
  });

  it('refuses to be framed', async () => {
    const { page } = await consentPage();
    const headers = (await page.goto(
      authorizeUrl(running.url, client, { code_challenge: pkce().challenge }).href,
    ))!.headers();
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['x-frame-options']).toBe('DENY');
    await page.close();
  });

  it('lets the member revoke the app afterwards on /oauth/consents, signed in on that page', async () => {
    // The app this test revokes is approved here, whatever ran before.
    const { page: consent } = await consentPage();
    await consent.getByLabel('Member name').fill(MEMBER.member);
    await consent.getByLabel('Password').fill(MEMBER.password);
    await consent.getByRole('button', { name: 'Continue' }).click();
    await Promise.all([
      consent.waitForURL(/\/callback\?/),
      consent.getByRole('button', { name: 'Approve' }).click(),
    ]);
    await consent.close();
    const page = await browser.newPage();
    await page.goto(`${running.url}/oauth/consents`);
    await page.getByLabel('Member name').fill(MEMBER.member);
    await page.getByLabel('Password').fill(MEMBER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.locator('h1').textContent()).resolves.toContain(MEMBER.member);
    const revoke = page.getByRole('button', { name: 'Revoke raw test client' });
    expect(await revoke.count()).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, 'member-consents.png'), fullPage: true });
    await revoke.click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('no longer acts');
    expect(await page.getByRole('button', { name: 'Revoke raw test client' }).count()).toBe(0);
    expect(await page.evaluate('document.scripts.length')).toBe(0);
    await page.close();
  });
});
