import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvent } from '../../../runtime/core/governance/audit-event.ts';
import { changeActions, listActions } from '../../../runtime/core/operator/actions.ts';
import { disconnect } from '../../../runtime/core/operator/disconnect.ts';
import { connectUrl } from '../../../runtime/core/operator/remote-connections.ts';
import { refreshRemote } from '../../../runtime/core/operator/remote-refresh.ts';
import { HAS_CHROMIUM, launchChromium } from '../../support/chromium.ts';
import {
  CONNECTION,
  type ConsoleGateway,
  consoleClient,
  PASSWORD,
  PEOPLE,
  startConsoleGateway,
} from '../../support/console.ts';
import { lookAt } from '../../support/console-look.ts';
import { signedInPage } from '../../support/console-sign-in.ts';
import { startUpstream } from '../../support/remote/upstream-servers.ts';

const HOSTILE = '<img src=x onerror="document.title=1"> Reports the weather \u202eevil\x1b[31m now';

let running: ConsoleGateway;
let browser: Browser;

beforeAll(async () => {
  [running, browser] = await Promise.all([startConsoleGateway(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await running?.close();
});

function signedIn(name: string): Promise<Page> {
  return signedInPage(browser, running.url, name);
}

// axe-core and full-page screenshots at two widths take their time on a shared machine.
describe.skipIf(!HAS_CHROMIUM)('the console in Chromium', { timeout: 240_000 }, () => {
  it('signs an owner in by keyboard alone and lists the connections', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const outside: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(running.url)) outside.push(request.url());
    });
    await page.goto(`${running.url}/console`);
    await expect(page.locator('h1').textContent()).resolves.toBe(
      'Sign in to the Portcullis console',
    );
    await lookAt(page, 'console-sign-in');
    await page.getByLabel('Member name').focus();
    await page.keyboard.type(PEOPLE.owner);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    const row = page.locator(`tr[data-connection="${CONNECTION}"]`);
    await row.waitFor();
    const text = await row.textContent();
    expect(text).toContain('Unverified server');
    expect(text).toContain(new URL(running.upstream.url).host);
    await expect(page.locator('header').textContent()).resolves.toContain(
      `${PEOPLE.owner} · owner of default`,
    );
    await lookAt(page, 'console-connections');
    await page.emulateMedia({ colorScheme: 'dark' });
    await lookAt(page, 'console-connections-dark');
    expect(outside).toEqual([]);
    await context.close();
  });

  it('approves a tool whose description changed upstream, its markup and controls shown as text', async () => {
    const ctx = running.gateway.running.gateway.operator('cli');
    running.upstream.setDescription(HOSTILE);
    await refreshRemote(ctx, { workspace: 'default', connection: CONNECTION });
    const page = await signedIn(PEOPLE.owner);
    await page.goto(`${running.url}/console#/connections/${CONNECTION}`);
    const item = page.locator('article[data-action]').first();
    await item.waitFor();
    const after = await item.locator('pre[data-side=after]').textContent();
    expect(after).toContain('<img src=x onerror="document.title=1">');
    expect(after).toContain('\\u202eevil\\x1b[31m');
    await expect(page.locator('main img').count()).resolves.toBe(0);
    await expect(page.title()).resolves.not.toBe('1');
    await lookAt(page, 'console-review');
    const name = await item.getAttribute('data-action');
    await item.getByRole('button', { name: /^Approve/ }).click();
    await expect(
      page.getByRole('status').filter({ hasText: 'Approved' }).textContent(),
    ).resolves.toContain(name!);
    const actions = await listActions(ctx, { workspace: 'default', connection: CONNECTION });
    expect(actions.find((a) => a.name === name)?.review).toBe('reviewed');
    await page.context().close();
  });

  it("queues a remote server's changed prompt and resource for review, each marked as what it is", async () => {
    const ctx = running.gateway.running.gateway.operator('cli');
    const memos = await startUpstream('modern', { resourcesAndPrompts: true });
    const workspace = 'default';
    try {
      await connectUrl(ctx, { workspace, url: memos.url, name: 'memos' });
      await changeActions(ctx, 'review', { workspace, connection: 'memos', all: true });
      memos.changeFeatures({ prompt: HOSTILE, resource: 'A welcome note, rewritten.' });
      await refreshRemote(ctx, { workspace, connection: 'memos' });
      const page = await signedIn(PEOPLE.owner);
      await page.goto(`${running.url}/console#/connections/memos`);
      const queued = page.locator('article[data-action]');
      await queued.first().waitFor();
      const kinds = await queued.evaluateAll((items) =>
        items.map((item) => [
          item.getAttribute('data-action'),
          item.querySelector('.badge-kind')?.textContent ?? null,
        ]),
      );
      expect(kinds).toEqual(
        expect.arrayContaining([
          [expect.stringContaining('greet'), 'prompt'],
          [expect.stringContaining('welcome'), 'resource'],
        ]),
      );
      expect(kinds).toHaveLength(2);
      const prompt = queued.filter({ has: page.locator('.badge-kind', { hasText: 'prompt' }) });
      await expect(prompt.locator('pre[data-side=after]').textContent()).resolves.toContain(
        '<img src=x onerror="document.title=1">',
      );
      await expect(page.locator('main img').count()).resolves.toBe(0);
      // The per-action policies mark them too; the server's tools are not marked.
      const listed = page.locator('section[aria-labelledby="per-action"] tr[data-action]');
      await expect(
        listed.evaluateAll((rows) =>
          rows.map((row) => row.querySelector('.badge-kind')?.textContent ?? 'tool').sort(),
        ),
      ).resolves.toEqual(expect.arrayContaining(['tool', 'resource template']));
      await lookAt(page, 'console-review-prompts');
      await page.context().close();
    } finally {
      await disconnect(ctx, { workspace, connection: 'memos' });
      await memos.close();
    }
  });

  it('grants an agent the connection, revokes the grant, and turns a class of actions on and off', async () => {
    const ctx = running.gateway.running.gateway.operator('cli');
    const page = await signedIn(PEOPLE.operator);
    await page.goto(`${running.url}/console#/connections/${CONNECTION}`);
    await page.getByLabel('Agent', { exact: true }).selectOption('deploy-bot');
    await page.getByLabel('Scope').selectOption('reads');
    await page.getByRole('button', { name: 'Grant', exact: true }).click();
    await page.locator('tr[data-grant="deploy-bot"]').waitFor();
    await expect(
      page.locator('tr[data-grant="deploy-bot"] td[data-label=Scope]').textContent(),
    ).resolves.toBe('reads');
    // Destructive actions (delete_item alone): on, then off again; the tool under review is a read.
    const destructive = page.locator('tr[data-class=destructive]');
    await destructive.getByRole('button', { name: /^Turn on/ }).click();
    await page.getByRole('status').filter({ hasText: 'turned on' }).waitFor();
    await destructive.locator('td[data-label=On]', { hasText: /^1 of 1$/ }).waitFor();
    await destructive.getByRole('button', { name: /^Turn off/ }).click();
    await page.getByRole('status').filter({ hasText: 'turned off' }).waitFor();
    await destructive.locator('td[data-label=On]', { hasText: /^0 of 1$/ }).waitFor();
    await lookAt(page, 'console-connection');
    const actions = await listActions(ctx, { workspace: 'default', connection: CONNECTION });
    expect(actions.filter((a) => a.classification === 'destructive').map((a) => a.state)).toEqual([
      'disabled',
    ]);
    await page
      .locator('tr[data-grant="deploy-bot"]')
      .getByRole('button', { name: /^Revoke/ })
      .click();
    await page.getByRole('status').filter({ hasText: 'deploy-bot may no longer use' }).waitFor();
    await page.locator('tr[data-grant="deploy-bot"]').waitFor({ state: 'detached' });
    await page.context().close();
  });

  it('creates an agent, shows its key once with the client snippet, and revokes it', async () => {
    const page = await signedIn(PEOPLE.operator);
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByLabel('Agent name').fill('browser-bot');
    await page.getByRole('button', { name: 'Create agent' }).click();
    const key = await page.getByLabel('Agent key').inputValue();
    expect(key).toMatch(/^pck_/);
    await expect(page.locator('#client-snippet').textContent()).resolves.toContain(
      `"Authorization": "Bearer ${key}"`,
    );
    await expect(page.getByRole('button', { name: 'Copy key' }).isVisible()).resolves.toBe(true);
    await lookAt(page, 'console-agent-key');
    await page
      .locator('tr[data-agent="browser-bot"]')
      .getByRole('button', { name: /^Revoke/ })
      .click();
    await page.getByRole('status').filter({ hasText: 'Revoked browser-bot' }).waitFor();
    await page
      .locator('tr[data-agent="browser-bot"] td[data-label=Status]', { hasText: /^revoked$/ })
      .waitFor();
    await lookAt(page, 'console-agents');
    // The key no longer opens /mcp.
    const refused = await fetch(`${running.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(refused.status).toBe(401);
    await page.context().close();
  });

  it('filters the audit log by action and by outcome', async () => {
    // A wrong password: a denied event in the owner's workspace.
    expect(
      (await consoleClient(running.url).signIn(PEOPLE.owner, 'a wrong password!')).status,
    ).toBe(401);
    const page = await signedIn(PEOPLE.owner);
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.locator('tr[data-event]').first().waitFor();
    await page.getByLabel('Action').fill('agent.create');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const cells = page.locator('tr[data-event] td[data-label=Action]');
    await cells
      .filter({ hasNotText: /^agent\.create$/ })
      .first()
      .waitFor({ state: 'detached' });
    expect(await cells.count()).toBeGreaterThan(0);
    await lookAt(page, 'console-audit');
    await page.getByLabel('Action').fill('');
    await page.getByLabel('Outcome').selectOption('denied');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const outcomes = page.locator('tr[data-event] td[data-label=Outcome]');
    await outcomes
      .filter({ hasNotText: /^denied/ })
      .first()
      .waitFor({ state: 'detached' });
    await page
      .locator('tr[data-event]', { hasText: 'oauth.sign_in' })
      .filter({ hasText: 'unauthenticated' })
      .first()
      .waitFor();
    await page.context().close();
  });

  it('says on behalf of whom a delegated call acted, inert, and filters the log by member', async () => {
    const { store } = running.gateway.running.gateway;
    const workspaceId = (await store.workspaces.byName('default'))!.id;
    const mia = (await store.oauth.members.byName(PEOPLE.member))!;
    const bot = (await store.agents.list(workspaceId)).find((a) => a.name === 'deploy-bot')!;
    // The OAuth client's id is the client's own text (a metadata document's URL, say).
    const client = 'https://app.example/<img/src=x/onerror=document.title=1>\u202eevil';
    await store.audit.append(
      auditEvent({
        at: new Date().toISOString(),
        workspaceId,
        actorKind: 'agent',
        actorId: bot.id,
        action: `${CONNECTION}__delegated_read`,
        decision: 'allowed',
        outcome: 'ok',
        delegation: `member:${mia.id} agent:${bot.id} client:${client}`,
      }),
    );
    // A call of a token issued from an ID-JAG: the chain names the IdP that issued it.
    await store.audit.append(
      auditEvent({
        at: new Date().toISOString(),
        workspaceId,
        actorKind: 'agent',
        actorId: bot.id,
        action: `${CONNECTION}__id_jag_read`,
        decision: 'allowed',
        outcome: 'ok',
        delegation: `member:${mia.id} agent:${bot.id} client:machine-1 idp:acme`,
      }),
    );
    const page = await signedIn(PEOPLE.owner);
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.locator('tr[data-event]').first().waitFor();
    await page.getByLabel('Member').selectOption(PEOPLE.member);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const row = page.locator('tr[data-event]', { hasText: `${CONNECTION}__delegated_read` });
    await row.waitFor();
    // The filter is the server's: the owner's own events are not hers.
    await page
      .locator('tr[data-event]', { hasText: `member ${PEOPLE.owner}` })
      .first()
      .waitFor({ state: 'detached' });
    const actor = (await row.locator('td[data-label=Actor]').textContent()) ?? '';
    expect(actor).toContain(`on behalf of ${PEOPLE.member}`);
    expect(actor).toContain(
      `member ${PEOPLE.member} → agent deploy-bot → client https://app.example/<img/src=x/onerror=`,
    );
    expect(actor).not.toContain('\u202e');
    expect(actor).toContain('\\u202e');
    expect(await row.locator('img').count()).toBe(0);
    expect(await page.title()).not.toBe('1');
    const viaIdp = page.locator('tr[data-event]', { hasText: `${CONNECTION}__id_jag_read` });
    expect((await viaIdp.locator('td[data-label=Actor]').textContent()) ?? '').toContain(
      `on behalf of ${PEOPLE.member}member ${PEOPLE.member} → agent deploy-bot → client machine-1 (ID-JAG from the IdP acme)`,
    );
    // At 1280 px a long client id wraps in the Actor column: the action's name stays on one line.
    await page.setViewportSize({ width: 1280, height: 900 });
    const id = await row.getAttribute('data-event');
    const actionLines = await page.evaluate<number>(
      `document.querySelector('tr[data-event="${id}"] td[data-label=Action] code').getClientRects().length`,
    );
    expect(actionLines).toBe(1);
    await lookAt(page, 'console-audit-delegation');
    await page.context().close();
  });

  it("refuses a viewer's change forged from the page, on the server, with its reason code", async () => {
    const page = await signedIn(PEOPLE.viewer);
    await expect(page.locator('main').textContent()).resolves.toContain('You are a viewer');
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.locator('tr[data-agent]').first().waitFor();
    await expect(page.getByLabel('Agent name').count()).resolves.toBe(0);
    const forged = await page.evaluate(async () => {
      const session = (await (await fetch('/console/api/session')).json()) as { csrf: string };
      const response = await fetch('/console/api/agents', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-portcullis-csrf': session.csrf },
        body: JSON.stringify({ name: 'forged-bot' }),
      });
      return {
        status: response.status,
        body: (await response.json()) as { error: { code: string } },
      };
    });
    expect([forged.status, forged.body.error.code]).toEqual([403, 'console_role_refused']);
    await lookAt(page, 'console-viewer-agents');
    await page.context().close();
  });

  it('tells a member without a console role where to go instead', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${running.url}/console`);
    await page.getByLabel('Member name').fill(PEOPLE.member);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await expect(alert.textContent()).resolves.toContain('console_role_refused');
    await expect(alert.textContent()).resolves.toContain('/oauth/consents');
    await lookAt(page, 'console-sign-in-refused');
    await page.context().close();
  });
});
