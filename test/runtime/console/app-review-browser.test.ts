/**
 * An MCP App's page on the console's review page, in Chromium: the vanilla
 * example's HTML changed upstream waits for review with what it may reach
 * and asks for shown plainly, its tool is served without `_meta.ui` until an
 * owner approves the page there, and then with it again; a hostile app's
 * origins and permissions are shown inert and flagged; an operator turns the
 * connection's apps off and on again on its page (audited), a viewer cannot.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../../runtime/core/operator/agents.ts';
import { grant } from '../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../runtime/core/operator/remote-connections.ts';
import { refreshRemote } from '../../../runtime/core/operator/remote-refresh.ts';
import { HAS_CHROMIUM, launchChromium } from '../../support/chromium.ts';
import {
  type ConsoleGateway,
  consoleClient,
  PEOPLE,
  startConsoleGateway,
} from '../../support/console.ts';
import { lookAt } from '../../support/console-look.ts';
import { signedInPage } from '../../support/console-sign-in.ts';
import { type AppServer, startAppServer } from '../../support/remote/app-server.ts';
import { type HostileApp, startHostileApp } from '../../support/remote/hostile-app.ts';
import { connectReviewed } from '../../support/remote/reviewed-connection.ts';

let running: ConsoleGateway;
let browser: Browser;
let clock: AppServer;
let hostile: HostileApp;
let client: Client;
const workspace = 'default';
const PAGE = 'ui://get-time/mcp-app.html';

beforeAll(async () => {
  [running, browser, clock, hostile] = await Promise.all([
    startConsoleGateway(),
    launchChromium(),
    startAppServer('server-basic-vanillajs'),
    startHostileApp(),
  ]);
  const ctx = running.gateway.running.gateway.operator('cli');
  const { key } = await createAgent(ctx, { workspace, name: 'viewer-bot' });
  await connectReviewed(ctx, { url: clock.url, name: 'clock' }, 'viewer-bot');
  await connectUrl(ctx, { workspace, url: hostile.url, name: 'board' });
  await grant(ctx, { workspace, agent: 'viewer-bot', connection: 'board', scope: 'reads' });
  client = new Client(
    { name: 'viewer', version: '1.0.0' },
    {
      capabilities: {
        extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
      },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${running.url}/mcp/c/clock`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
}, 120_000);
afterAll(async () => {
  await client?.close();
  await browser?.close();
  await running?.close();
  await clock?.close();
  await hostile?.close();
});

const toolMeta = async () =>
  (await client.listTools()).tools.find((t) => t.name === 'get-time')?._meta;

async function reviewPage(
  connection: string,
  who: string = PEOPLE.owner,
): Promise<{ page: Page; outside: string[] }> {
  const page = await signedInPage(browser, running.url, who);
  const outside: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(running.url)) outside.push(request.url());
  });
  await page.goto(`${running.url}/console#/connections/${connection}`);
  await page.locator('section[aria-labelledby="apps"]').waitFor();
  return { page, outside };
}

describe.skipIf(!HAS_CHROMIUM)('MCP Apps on the console', { timeout: 240_000 }, () => {
  it('a page changed upstream waits for review, and an owner approves it there', async () => {
    const ctx = running.gateway.running.gateway.operator('cli');
    expect((await toolMeta())?.ui).toEqual({ resourceUri: PAGE });
    await clock.setHtml(`${await clock.html()}<!-- changed upstream -->`);
    await refreshRemote(ctx, { workspace, connection: 'clock' });
    expect(await toolMeta()).toBeUndefined();

    const { page, outside } = await reviewPage('clock');
    const item = page.locator(`article[data-action="resource:${PAGE}"]`);
    await expect(item.locator('.app-review').textContent()).resolves.toContain(
      'No origin: the page has no network.',
    );
    await expect(item.locator('.app-review').textContent()).resolves.toContain('No permission.');
    await lookAt(page, 'console-app-review-changed');
    await item.getByRole('button', { name: /^Approve/ }).click();
    await page.getByRole('status').filter({ hasText: 'Approved' }).waitFor();
    expect((await toolMeta())?.ui).toEqual({ resourceUri: PAGE });
    const read = await client.readResource({ uri: PAGE });
    expect(read.contents[0]).toMatchObject({ text: await clock.html() });
    expect(outside).toEqual([]);
    await page.context().close();
  });

  it("a hostile app's origins and permissions are shown inert, and flagged", async () => {
    const { page, outside } = await reviewPage('board');
    const item = page.locator('article[data-action="resource:ui://board/view.html"]');
    const panel = item.locator('.app-review');
    await expect(
      panel.locator('[data-directive="connectDomains"] code').allTextContents(),
    ).resolves.toEqual(['*']);
    await expect(
      panel.locator('[data-directive="resourceDomains"] code').allTextContents(),
    ).resolves.toEqual(['https://cdn.evil.example']);
    await expect(panel.locator('[data-permissions]').textContent()).resolves.toBe(
      'camera, microphone, location, writing to the clipboard',
    );
    await expect(
      item.locator('.flags li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-rule'))),
    ).resolves.toEqual(['app-reaches-out', 'app-reaches-out', 'app-reaches-out']);
    await expect(page.locator('main a[href*="evil"]').count()).resolves.toBe(0);
    await lookAt(page, 'console-app-review-hostile');
    expect(outside).toEqual([]);
    await page.context().close();
  });

  it("an operator turns the connection's apps off on its page, and on again; each change audited", async () => {
    const store = running.gateway.running.gateway.store;
    const { page, outside } = await reviewPage('clock', PEOPLE.operator);
    const panel = page.locator('section[aria-labelledby="apps"]');
    await expect(panel.locator('[data-apps]').getAttribute('data-apps')).resolves.toBe('on');
    expect((await toolMeta())?.ui).toEqual({ resourceUri: PAGE });
    await panel.getByRole('button', { name: /^Turn MCP Apps off/ }).click();
    await page.getByRole('status').filter({ hasText: 'turned off' }).waitFor();
    await panel.locator('[data-apps="off"]').waitFor();
    // Off: the tool without its app, the page neither listed nor read.
    expect(await toolMeta()).toBeUndefined();
    expect((await client.listResources()).resources.map((r) => r.uri)).not.toContain(PAGE);
    await expect(client.readResource({ uri: PAGE })).rejects.toThrow();
    const [off] = await store.audit.query({ action: 'connection.set_apps', limit: 1 });
    const operator = await store.oauth.members.byName(PEOPLE.operator);
    expect(off).toMatchObject({
      subject: 'clock: apps off',
      outcome: 'ok',
      actorKind: 'member',
      actorId: operator?.id,
    });
    await lookAt(page, 'console-connection-apps-off');
    await panel.getByRole('button', { name: /^Turn MCP Apps on/ }).click();
    await panel.locator('[data-apps="on"]').waitFor();
    expect((await toolMeta())?.ui).toEqual({ resourceUri: PAGE });
    const [on] = await store.audit.query({ action: 'connection.set_apps', limit: 1 });
    expect(on).toMatchObject({ subject: 'clock: apps on', outcome: 'ok' });
    expect(outside).toEqual([]);
    await page.context().close();
  });

  it('a viewer sees whether apps are on, and cannot turn them', async () => {
    const { page } = await reviewPage('clock', PEOPLE.viewer);
    const button = page
      .locator('section[aria-labelledby="apps"]')
      .getByRole('button', { name: /^Turn MCP Apps/ });
    await expect(button.isDisabled()).resolves.toBe(true);
    await page.context().close();
    const viewer = consoleClient(running.url);
    await viewer.signIn(PEOPLE.viewer);
    const refused = await viewer.call('POST', '/connections/clock/apps', { apps: 'off' });
    expect(refused.status).toBe(403);
    expect((await toolMeta())?.ui).toEqual({ resourceUri: PAGE });
  });
});
