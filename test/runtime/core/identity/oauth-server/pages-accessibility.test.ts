/**
 * The member pages in Chromium at a desktop and a phone width: axe-core finds
 * no serious or critical violation on any of them, and each is kept as a
 * screenshot under artifacts/pages/ for a person to look at. The consent
 * page is shown for a client whose chosen name carries markup and a bidi
 * override, which must reach the page as inert text; the consent review is
 * the page a signed-in member sees before Approve; the decided page, what a
 * form posted again after its request was answered gets.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchChromium } from '../../../../support/chromium.ts';
import { ROOT } from '../../../../support/fixtures.ts';
import {
  MEMBER,
  type OAuthGateway,
  startOAuthGateway,
} from '../../../../support/oauth/oauth-gateway.ts';
import { authorizeUrl, pkce } from '../../../../support/oauth/raw-flow.ts';

const SHOTS = join(ROOT, 'artifacts', 'pages');
const WIDTHS = [1280, 375] as const;
const HOSTILE_NAME = '<b>Bank</b> \u202etxt.exe';

let running: OAuthGateway;
let browser: Browser;
let consentUrl: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  running = await startOAuthGateway();
  const redirectUri = 'http://127.0.0.1:9/callback';
  const registered = await fetch(`${running.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: HOSTILE_NAME, redirect_uris: [redirectUri] }),
  });
  expect(registered.status).toBe(201);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  consentUrl = authorizeUrl(
    running.url,
    { clientId, redirectUri },
    {
      code_challenge: pkce().challenge,
    },
  ).href;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await running?.close();
});

const pages: Array<[string, () => string]> = [
  ['consent', () => consentUrl],
  ['consent-review', () => consentUrl],
  ['consent-decided', () => consentUrl],
  ['member-consents', () => `${running.url}/oauth/consents`],
  ['problem', () => `${running.url}/oauth/authorize?client_id=nobody`],
];

describe.skipIf(!HAS_CHROMIUM)('the member pages in Chromium', () => {
  for (const [name, url] of pages)
    for (const width of WIDTHS)
      it(`${name} at ${width} px: no serious or critical axe violation`, async () => {
        const context = await browser.newContext({ viewport: { width, height: 900 } });
        const page = await context.newPage();
        try {
          await page.goto(url());
          if (name === 'consent-review' || name === 'consent-decided') {
            // The page after Continue: what the client will reach, before Approve.
            await page.getByLabel('Member name').fill(MEMBER.member);
            await page.getByLabel('Password').fill(MEMBER.password);
            await page.getByRole('button', { name: 'Continue' }).click();
            await page.waitForSelector('#signed-in');
          }
          if (name === 'consent-decided') {
            // Denied in another tab, then approved here with the same form: refused on a page.
            await page.evaluate("document.querySelector('form').target = '_blank'");
            const [denied] = await Promise.all([
              context.waitForEvent('page'),
              page.getByRole('button', { name: 'Deny' }).click(),
            ]);
            await denied.waitForLoadState();
            await page.evaluate("document.querySelector('form').removeAttribute('target')");
            await page.getByRole('button', { name: 'Approve' }).click();
            await page
              .getByRole('heading', { name: 'This request was already answered' })
              .waitFor();
          }
          await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
          const { violations } = await new AxeBuilder({ page }).analyze();
          const serious = violations.filter(
            (v) => v.impact === 'serious' || v.impact === 'critical',
          );
          expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
          if (name === 'consent') {
            await expect(page.locator('b', { hasText: 'Bank' }).count()).resolves.toBe(0);
            await expect(page.locator('h1').textContent()).resolves.toContain('\\u202e');
          }
        } finally {
          await context.close();
        }
      });
});
