import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchChromium } from '../../support/chromium.ts';
import { type ConsoleGateway, PEOPLE, startConsoleGateway } from '../../support/console.ts';
import { lookAt } from '../../support/console-look.ts';
import { signedInPage } from '../../support/console-sign-in.ts';
import { callTool, mcpClient } from '../../support/gateway.ts';
import { type PrismServer, startPrism } from '../../support/prism.ts';
import { type RecordingProxy, startRecordingProxy } from '../../support/recording-proxy.ts';

const KEY = 'ukc-browser-key-5d1e9c';
const HOSTILE = '<img src=x onerror="document.title=1"> \u202eevil\x1b[31m';

let prism: PrismServer;
let proxy: RecordingProxy;
let running: ConsoleGateway;
let browser: Browser;

beforeAll(async () => {
  prism = await startPrism('unikraft', 'platform');
  proxy = await startRecordingProxy(prism.url);
  [running, browser] = await Promise.all([
    startConsoleGateway({ upstreams: { unikraft: proxy.url } }),
    launchChromium(),
  ]);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await running?.close();
  await proxy?.close();
  await prism?.stop();
});

function signedIn(name: string): Promise<Page> {
  return signedInPage(browser, running.url, name);
}

const cards = (page: Page) => page.locator('li.gallery-card[data-app]:not([data-app="own"])');

describe.skipIf(!HAS_CHROMIUM)('Apps → Connect an app in Chromium', { timeout: 300_000 }, () => {
  it('searches the gallery as you type, and shows a hostile search as text', async () => {
    const page = await signedIn(PEOPLE.owner);
    // Apps → Connect an app: the navigation's own entry, by keyboard, and there at a 320 px phone too.
    const entry = page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Connect an app' });
    await page.setViewportSize({ width: 320, height: 700 });
    const box = (await entry.boundingBox())!;
    expect(box.x >= 0 && box.x + box.width <= 320).toBe(true);
    await entry.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Connect an app' }).waitFor();
    await expect(entry.getAttribute('aria-current')).resolves.toBe('page');
    // The heading comes before the gallery's data: wait for the cards themselves.
    await page.locator('li[data-app="unikraft"]').waitFor();
    await expect(cards(page).count()).resolves.toBe(6);
    const unikraft = page.locator('li[data-app="unikraft"]');
    await expect(unikraft.textContent()).resolves.toMatch(
      /Unikraft Cloud.*Native API.*34 reads · 31 writes · 25 destructive/s,
    );
    await expect(
      page.locator('li[data-app="own"] a[href="#/connect/own"]').textContent(),
    ).resolves.toBe('Connect your own MCP server');
    await lookAt(page, 'gallery');

    const search = page.getByLabel('Search apps');
    const shownApps = () => cards(page).evaluateAll((li) => li.map((e) => e.dataset.app));
    await search.pressSequentially('metro');
    await expect.poll(shownApps).toEqual(['unikraft']);
    await search.fill('sandbox');
    await expect.poll(shownApps).toEqual(['daytona', 'unikraft']);
    await lookAt(page, 'gallery-search');
    await search.fill(HOSTILE);
    await expect.poll(() => cards(page).count()).toBe(0);
    const status = await page.getByRole('status').textContent();
    expect(status).toContain('<img src=x onerror="document.title=1">');
    expect(status).toContain('\\u202e');
    await expect(page.locator('main img').count()).resolves.toBe(0);
    await expect(page.title()).resolves.not.toBe('1');
    await page.context().close();
  });

  it('connects Unikraft with a key and another metro, and an agent calls it with that key', async () => {
    const page = await signedIn(PEOPLE.owner);
    await page.goto(`${running.url}/console#/connect`);
    await page.getByLabel('Search apps').fill('unikraft');
    await page.getByRole('link', { name: 'Add key for Unikraft Cloud' }).click();
    await page.getByRole('heading', { level: 1, name: 'Connect Unikraft Cloud' }).waitFor();
    const key = page.getByLabel('Unikraft Cloud API token');
    await expect(key.getAttribute('type')).resolves.toBe('password');
    await expect(page.locator('#guide-token').textContent()).resolves.toContain('UKC_TOKEN');
    // The default metro, with Change.
    const metro = page.locator('[data-setting="metro"]');
    await expect(metro.textContent()).resolves.toMatch(
      /Default metro\s*fra\s*\(default\)\s*Change/,
    );
    await lookAt(page, 'gallery-connect-unikraft');

    // A refusal is shown beside the field it names, and the key is not kept.
    await page.getByLabel('Connection name').fill('Not A Name');
    await key.fill(KEY);
    await page.getByRole('button', { name: 'Connect Unikraft Cloud' }).click();
    const nameError = page.locator('#connection-name-error');
    await nameError.filter({ hasText: 'invalid_input' }).waitFor();
    await expect(page.getByLabel('Connection name').getAttribute('aria-invalid')).resolves.toBe(
      'true',
    );
    await expect(key.inputValue()).resolves.toBe('');
    await lookAt(page, 'gallery-connect-refused');

    await page.getByLabel('Connection name').fill('');
    await metro.getByRole('button', { name: 'Change' }).click();
    await page.getByLabel('Default metro').selectOption('dal');
    await key.fill(KEY);
    const sent = proxy.seen.length;
    await page.getByRole('button', { name: 'Connect Unikraft Cloud' }).click();
    await page.waitForURL(/#\/connections\/unikraft$/);
    // The key was tried upstream before it was kept.
    expect(proxy.seen.slice(sent).map((r) => r.authorization)).toContain(`Bearer ${KEY}`);

    await page.getByRole('link', { name: 'Connections', exact: true }).click();
    const row = page.locator('tr[data-connection="unikraft"]');
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('native');
    const seen = await page.evaluate(async () => {
      const session = (await (await fetch('/console/api/session')).json()) as { csrf: string };
      const post = (path: string, body: unknown) =>
        fetch(`/console/api${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-portcullis-csrf': session.csrf },
          body: JSON.stringify(body),
        }).then((r) => r.json());
      const agent = (await post('/agents', { name: 'gallery-bot' })) as { key: string };
      await post('/grants', { agent: 'gallery-bot', connection: 'unikraft', scope: 'reads' });
      const list = (await (await fetch('/console/api/connections')).json()) as Array<{
        connection: { name: string; settings: Record<string, string> };
      }>;
      return {
        agentKey: agent.key,
        settings: list.find((c) => c.connection.name === 'unikraft')?.connection.settings,
      };
    });
    expect(seen.settings).toEqual({ metro: 'dal' });
    expect(await page.locator('body').textContent()).not.toContain(KEY);

    const agent = await mcpClient(running.url, seen.agentKey);
    try {
      const called = proxy.seen.length;
      const result = await callTool(agent, 'unikraft_get_user');
      expect(result.isError).toBeFalsy();
      expect(proxy.seen.slice(called)).toEqual([
        expect.objectContaining({ method: 'GET', authorization: `Bearer ${KEY}` }),
      ]);
    } finally {
      await agent.close();
    }
    await page.goto(`${running.url}/console#/connect/app/unikraft`);
    await page.getByText('Already connected as unikraft').waitFor();
    await expect(page.getByLabel('Unikraft Cloud API token').inputValue()).resolves.toBe('');
    await page.context().close();
  });

  it('shows a viewer what an app asks for, and nothing to send', async () => {
    const page = await signedIn(PEOPLE.viewer);
    await page.goto(`${running.url}/console#/connect/app/coolify`);
    await page.getByRole('heading', { level: 1, name: 'Connect Coolify' }).waitFor();
    await expect(page.getByRole('button', { name: 'Connect Coolify' }).isDisabled()).resolves.toBe(
      true,
    );
    await expect(page.locator('[data-setting="host"]').textContent()).resolves.toContain(
      'app.coolify.io',
    );
    await lookAt(page, 'gallery-viewer-coolify');
    await page.goto(`${running.url}/console#/connect/app/github`);
    await page.getByRole('heading', { level: 1, name: 'Connect GitHub' }).waitFor();
    await expect(
      page.getByRole('button', { name: 'Sign in to continue' }).isDisabled(),
    ).resolves.toBe(true);
    await lookAt(page, 'gallery-viewer-github');
    await page.context().close();
  });
});
