import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../../runtime/core/operator/agents.ts';
import { grant } from '../../../runtime/core/operator/grants.ts';
import { HAS_CHROMIUM, launchChromium } from '../../support/chromium.ts';
import {
  CONNECTION,
  type ConsoleGateway,
  PEOPLE,
  startConsoleGateway,
} from '../../support/console.ts';
import { lookAt } from '../../support/console-look.ts';
import { signedInPage } from '../../support/console-sign-in.ts';
import { callTool, mcpClient } from '../../support/gateway.ts';

let running: ConsoleGateway;
let browser: Browser;
let key: string;

beforeAll(async () => {
  [running, browser] = await Promise.all([startConsoleGateway(), launchChromium()]);
  const ctx = running.gateway.running.gateway.operator('cli');
  ({ key } = await createAgent(ctx, { workspace: 'default', name: 'tail-bot' }));
  await grant(ctx, {
    workspace: 'default',
    agent: 'tail-bot',
    connection: CONNECTION,
    scope: 'all',
  });
});
afterAll(async () => {
  await browser?.close();
  await running?.close();
});

/** One governed call of the upstream's weather tool, as an agent makes it. */
async function callWeather(city: string): Promise<void> {
  const client = await mcpClient(running.url, key);
  try {
    const { tools } = await client.listTools();
    const name = tools.find((tool) => tool.name.endsWith('get_weather'))!.name;
    const reply = await callTool(client, name, { city });
    expect(reply.isError ?? false).toBe(false);
  } finally {
    await client.close();
  }
}

function signedIn(name: string, problems: string[]): Promise<Page> {
  return signedInPage(browser, running.url, name, {
    // What the strict CSP would refuse (an inline style or script, another origin), and script errors.
    watch: (page) => {
      page.on('console', (message) => {
        if (/Content.Security.Policy|Refused to/i.test(message.text()))
          problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
    },
  });
}

describe.skipIf(!HAS_CHROMIUM)('the activity pages in Chromium', { timeout: 240_000 }, () => {
  it('shows an MCP call made while the audit page is open in its live tail, and pauses', async () => {
    const problems: string[] = [];
    const page = await signedIn(PEOPLE.viewer, problems);
    await page.getByRole('link', { name: 'Audit log' }).click();
    const tail = page.getByRole('region', { name: 'Live tail' });
    await tail.getByText('No new events yet.').waitFor();
    // Let the tail take its starting cursor before the call.
    await page.waitForResponse((r) => r.url().includes('/console/api/audit/tail'));
    await callWeather('Lisbon');
    const row = tail.locator('tr[data-event]', { hasText: 'get_weather' }).first();
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('tail-bot');
    await expect(row.locator('td[data-label=Outcome]').textContent()).resolves.toBe('allowed');
    await expect(tail.locator('[aria-live=polite]').textContent()).resolves.toMatch(
      /^\d+ new audit events?$/,
    );
    await lookAt(page, 'console-audit-tail');

    // Paused by keyboard: a call made now does not appear until it resumes.
    await tail.getByRole('button', { name: 'Pause live tail' }).focus();
    await page.keyboard.press('Enter');
    await tail.getByText('Paused', { exact: true }).waitFor();
    const before = await tail.locator('tr[data-event]').count();
    await callWeather('Porto');
    await page.waitForTimeout(3_000);
    expect(await tail.locator('tr[data-event]').count()).toBe(before);
    await tail.getByRole('button', { name: 'Resume live tail' }).click();
    await tail.locator('tr[data-event]').nth(before).waitFor();
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('draws calls and latency on canvases, with the same figures as text', async () => {
    await callWeather('Faro');
    const problems: string[] = [];
    const page = await signedIn(PEOPLE.owner, problems);
    await page.getByRole('link', { name: 'Activity' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Activity');
    await page.locator('.chart canvas').nth(1).waitFor();
    expect(await page.locator('.chart canvas').count()).toBe(2);
    const figures = async (query: string) =>
      page.evaluate(async (q) => {
        const reply = await fetch(`/console/api/activity${q}`);
        return ((await reply.json()) as { totals: { calls: number; refusals: number } }).totals;
      }, query);
    const shownCalls = () => page.locator('[data-figure=calls]').textContent();

    const all = await figures('?range=24h');
    expect(all.calls).toBeGreaterThan(0);
    await expect(shownCalls()).resolves.toBe(all.calls.toLocaleString('en-US'));
    await expect(page.locator('[data-figure=refusals]').textContent()).resolves.toBe(
      String(all.refusals),
    );
    // Every period with calls is in the table; their calls add up to the total.
    await page.getByText('The figures as a table').click();
    const calls = await page.locator('tr[data-bucket] td[data-label=Calls]').allTextContents();
    const count = (text: string) => Number(text.replace(/\D/g, ''));
    expect(calls.map(count).reduce((a, b) => a + b, 0)).toBe(all.calls);
    await lookAt(page, 'console-activity');

    // One agent over the last hour: the selector and the range change what is summed.
    await page.getByLabel('Show', { exact: true }).selectOption('agent:tail-bot');
    await page.getByLabel('Time range').selectOption('1h');
    const mine = await figures('?range=1h&agent=tail-bot');
    await page.locator('[data-figure=calls]', { hasText: String(mine.calls) }).waitFor();
    // At least the call this test made (the tail test, when it ran first, made two more).
    expect(mine.calls).toBeGreaterThanOrEqual(1);
    expect(problems).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    await lookAt(page, 'console-activity-dark');
    await page.context().close();
  });
});
