/**
 * The upstream sign-in in a real browser, once: Debian's Chromium driven by
 * playwright-core, from the link `portcullis connection sign-in` printed,
 * through Portcullis's page (the host named, the unverified label), the
 * oidc-provider login and consent, to Portcullis's "Connected" page. A
 * screenshot is kept in artifacts/ (not committed) for a person to look at.
 */

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import { HAS_CHROMIUM, launchChromium } from '../../../../support/chromium.ts';
import { ROOT } from '../../../../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.ts';
import {
  type OAuthUpstream,
  startOAuthUpstream,
} from '../../../../support/remote/oauth-upstream.ts';
import { runPortcullisHere } from '../../../../support/run-cli.ts';

const ARTIFACTS = join(ROOT, 'artifacts');
const DEV = { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' };

let gateway: TestGateway;
let upstream: OAuthUpstream;
let browser: Browser;

beforeAll(async () => {
  [gateway, upstream] = await Promise.all([
    startTestGateway({ environment: DEV }),
    startOAuthUpstream({ tenant: 'browser' }),
  ]);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([gateway?.close(), upstream?.close()]);
});

describe.skipIf(!HAS_CHROMIUM)('the upstream sign-in in Chromium', () => {
  it('goes from the printed link to the connected page', async () => {
    const ctx = gateway.running.gateway.operator('test');
    await connectUrl(ctx, { workspace: 'default', url: upstream.mcp.url, name: 'chromium' });
    const printed = await runPortcullisHere(['connection', 'sign-in', 'chromium'], {
      ...DEV,
      PORTCULLIS_DATA_DIR: gateway.dataDir,
      PORTCULLIS_PUBLIC_URL: gateway.url,
    });
    const link = /(http:\/\/\S+\/connect\/oauth\/sign-in\?state=\S+)/.exec(printed.stdout)?.[1];
    expect(link).toBeDefined();

    const page = await (await browser.newContext()).newPage();
    await page.goto(link!);
    const host = new URL(upstream.issuer).host;
    await expect(page.locator('main').textContent()).resolves.toContain(
      `You are being sent to ${host} to sign in`,
    );
    await expect(page.locator('main').textContent()).resolves.toContain(
      `Unverified server: ${new URL(upstream.mcp.url).host}`,
    );
    await lookAt(page, 'upstream-sign-in-link');
    await page.click('#continue');
    await page.fill('input[name=login]', 'carol');
    await page.fill('input[name=password]', 'any');
    await page.click('button[type=submit]');
    await page.click('button[type=submit]'); // consent: Continue
    await page.waitForURL(/\/connect\/oauth\/callback/);
    await expect(page.locator('h1').textContent()).resolves.toBe('Connected');
    await expect(page.locator('main').textContent()).resolves.toContain('3 tools were discovered');
    await lookAt(page, 'upstream-sign-in-connected');
    await page.close();
    const connection = await ctx.store.connections.byName(
      (await ctx.store.workspaces.byName('default'))!.id,
      'chromium',
    );
    expect(connection?.status).toBe('active');
  });
});

/** Screenshots at a desktop and a phone width, kept for a person to look at; axe-core finds nothing serious. */
async function lookAt(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
    const { violations } = await new AxeBuilder({ page }).analyze();
    const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  }
}
