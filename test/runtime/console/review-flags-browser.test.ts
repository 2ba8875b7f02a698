/**
 * The console's review page on a hostile server (`poisoned-upstream.ts`),
 * in Chromium, on a deployment that holds flagged items
 * (PORTCULLIS_REVIEW_FLAGGED=block): each flagged item names its rule with
 * the server's text shown inert (no markup rendered, nothing fetched, bidi
 * and tag characters as visible escapes), an owner approves one only through
 * the confirmation, and a viewer reads the flags and changes nothing.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listActions } from '../../../runtime/core/operator/actions.ts';
import { connectUrl } from '../../../runtime/core/operator/remote-connections.ts';
import { HAS_CHROMIUM, launchChromium } from '../../support/chromium.ts';
import { type ConsoleGateway, PEOPLE, startConsoleGateway } from '../../support/console.ts';
import { lookAt } from '../../support/console-look.ts';
import { signedInPage } from '../../support/console-sign-in.ts';
import {
  CLEAN_TOOL,
  type PoisonedUpstream,
  startPoisonedUpstream,
  TRICKS,
} from '../../support/remote/poisoned-upstream.ts';
import { startUpstream, type Upstream } from '../../support/remote/upstream-servers.ts';

let running: ConsoleGateway;
let browser: Browser;
let poisoned: PoisonedUpstream;
let mail: Upstream;
const workspace = 'default';

beforeAll(async () => {
  [running, browser, poisoned, mail] = await Promise.all([
    startConsoleGateway({ environment: { PORTCULLIS_REVIEW_FLAGGED: 'block' } }),
    launchChromium(),
    startPoisonedUpstream(),
    startUpstream('modern', { namedTools: [{ name: 'send_email', description: 'Sends mail.' }] }),
  ]);
  const ctx = running.gateway.running.gateway.operator('cli');
  await connectUrl(ctx, { workspace, url: mail.url, name: 'mail' });
  await connectUrl(ctx, { workspace, url: poisoned.url, name: 'poisoned' });
});
afterAll(async () => {
  await browser?.close();
  await running?.close();
  await poisoned?.close();
  await mail?.close();
});

/** The review page of `poisoned`, signed in as `name`, and every request it sent away from the gateway. */
async function reviewPage(name: string): Promise<{ page: Page; outside: string[] }> {
  const page = await signedInPage(browser, running.url, name);
  const outside: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(running.url)) outside.push(request.url());
  });
  await page.goto(`${running.url}/console#/connections/poisoned`);
  await page.locator('article[data-action]').first().waitFor();
  return { page, outside };
}

describe.skipIf(!HAS_CHROMIUM)('review flags on the console', { timeout: 240_000 }, () => {
  it('names each flagged item with its rule, the server text inert', async () => {
    const { page, outside } = await reviewPage(PEOPLE.owner);
    const rules = await page
      .locator('article[data-action]')
      .evaluateAll((items) =>
        Object.fromEntries(
          items.map((item) => [
            item.getAttribute('data-action'),
            [...item.querySelectorAll('.flags li')].map((li) => li.getAttribute('data-rule')),
          ]),
        ),
      );
    for (const [item, rule] of Object.entries(TRICKS)) expect(rules[item], item).toContain(rule);
    expect(rules[CLEAN_TOOL]).toEqual([]);
    const chart = page.locator('article[data-action="poisoned__show_chart"] .flag-text');
    await expect(chart.first().textContent()).resolves.toContain(
      '<img src="https://evil.example/x.png">',
    );
    const time = await page
      .locator('article[data-action="poisoned__get_time"] .flag-text')
      .first()
      .textContent();
    expect(time).toContain('\\u{e0020}');
    expect(time).not.toMatch(/[\u{e0000}-\u{e007f}\u202e]/u);
    await expect(
      page.locator('article[data-action="poisoned__get_time"] .flag-rule').first().textContent(),
    ).resolves.toBe('Invisible characters');
    await expect(page.locator('main img').count()).resolves.toBe(0);
    await lookAt(page, 'console-review-flags');
    expect(outside).toEqual([]);
    await page.context().close();
  });

  it('an owner approves a flagged item only through the confirmation', async () => {
    const { page } = await reviewPage(PEOPLE.owner);
    const item = page.locator('article[data-action="poisoned__get_weather"]');
    await item.getByRole('button', { name: /^Approve poisoned__get_weather/ }).click();
    const confirm = item.getByRole('group');
    await confirm.waitFor();
    const past = confirm.getByRole('button', { name: /^Approve past its flags/ });
    await expect(past.isDisabled()).resolves.toBe(true);
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
    const ctx = running.gateway.running.gateway.operator('cli');
    const review = async () =>
      (await listActions(ctx, { workspace, connection: 'poisoned' })).find(
        (a) => a.name === 'poisoned__get_weather',
      )?.review;
    await expect(review()).resolves.toBe('new');
    await confirm.getByRole('checkbox').check();
    await lookAt(page, 'console-review-flags-confirm');
    await past.click();
    await expect(
      page.getByRole('status').filter({ hasText: 'Approved past its flags' }).textContent(),
    ).resolves.toContain('poisoned__get_weather');
    await expect(review()).resolves.toBe('reviewed');
    await page.context().close();
  });

  it('a class with a flagged item is approved only through the confirmation too', async () => {
    const { page } = await reviewPage(PEOPLE.operator);
    const reads = page.locator('.class-row[data-class="read"]');
    await expect(reads.textContent()).resolves.toMatch(/\d+ waiting, \d+ flagged/);
    await reads.getByRole('button', { name: /^Approve all/ }).click();
    await reads.getByRole('group').waitFor();
    await page.context().close();
  });

  it('a viewer reads the flags and cannot approve', async () => {
    const { page } = await reviewPage(PEOPLE.viewer);
    await page.locator('article[data-action="poisoned__check_login"] .flags li').first().waitFor();
    const approve = page
      .locator('article[data-action="poisoned__check_login"]')
      .getByRole('button', { name: /^Approve/ });
    await expect(approve.isDisabled()).resolves.toBe(true);
    await page.context().close();
  });
});
