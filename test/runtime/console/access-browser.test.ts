/**
 * Access and review in Debian's Chromium against a real gateway, a real
 * remote MCP server (the SDK's) and the gateway's own authorization server
 * on loopback: the server, connected by URL with no curated definition,
 * carries the Unverified server label and its host on its review page and
 * on each access section (policies, grants); an owner approves the queued actions of a class at once and
 * turns one action off and on; an operator grants an agent chosen actions
 * with its personal credential; an MCP client signs in for a member through
 * the consent page and an operator revokes that consent on the OAuth
 * clients page (its refresh token then refused), the client's own name
 * shown as text, and an owner chooses a client's step-up form there; an owner adds a member, changes their role and removes
 * them, and cannot demote the last owner; a viewer sees members and
 * consents and can change neither, and is sent back to the sign-in once
 * their session ends. Each page checked by axe-core and kept
 * as screenshots at 1280 and 375 px.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listActions } from '../../../runtime/core/operator/actions.ts';
import { listGrants } from '../../../runtime/core/operator/grants.ts';
import { listMembers } from '../../../runtime/core/operator/members.ts';
import { showClient } from '../../../runtime/core/operator/oauth-clients.ts';
import { refreshRemote } from '../../../runtime/core/operator/remote-refresh.ts';
import { HAS_CHROMIUM, launchChromium } from '../../support/chromium.ts';
import {
  CONNECTION,
  type ConsoleGateway,
  PASSWORD,
  PEOPLE,
  startConsoleGateway,
} from '../../support/console.ts';
import { lookAt } from '../../support/console-look.ts';
import { signedInPage } from '../../support/console-sign-in.ts';
import { consent } from '../../support/oauth/consent-bot.ts';
import { authorizeUrl, exchange, pkce, tokenRequest } from '../../support/oauth/raw-flow.ts';

const HOSTILE = '<img src=x onerror="document.title=1"> Notes \u202eevil\x1b[31m app';

let running: ConsoleGateway;
let browser: Browser;

beforeAll(async () => {
  [running, browser] = await Promise.all([startConsoleGateway(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await running?.close();
});

const ctx = () => running.gateway.running.gateway.operator('cli');
const actionsNow = () => listActions(ctx(), { workspace: 'default', connection: CONNECTION });

function signedIn(name: string, fragment = ''): Promise<Page> {
  return signedInPage(browser, running.url, name, { fragment });
}

/** A client registered under a hostile name, signed in for the member `mia` on the consent page. */
async function approvedClient(): Promise<{ clientId: string; refresh: string }> {
  const redirectUri = 'http://127.0.0.1:45123/callback';
  const registered = await fetch(`${running.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: HOSTILE, redirect_uris: [redirectUri] }),
  });
  expect(registered.status).toBe(201);
  const client = {
    clientId: ((await registered.json()) as { client_id: string }).client_id,
    redirectUri,
  };
  const { verifier, challenge } = pkce();
  const { location } = await consent(
    authorizeUrl(running.url, client, { code_challenge: challenge }),
    { member: PEOPLE.member, password: PASSWORD },
  );
  const tokens = await exchange(running.url, client, {
    code: location.searchParams.get('code')!,
    verifier,
  });
  expect(tokens.status).toBe(200);
  return { clientId: client.clientId, refresh: String(tokens.body.refresh_token) };
}

describe.skipIf(!HAS_CHROMIUM)('access and review in Chromium', { timeout: 240_000 }, () => {
  it('approves the queued actions of a class at once, and turns one action off and on', async () => {
    running.upstream.setDescription('Reports the weather, now with a changed description');
    await refreshRemote(ctx(), { workspace: 'default', connection: CONNECTION });
    // And one never reviewed, as if just found: two reads wait.
    const { store } = running.gateway.running.gateway;
    const workspace = await store.workspaces.byName('default');
    const connection = await store.connections.byName(workspace!.id, CONNECTION);
    await store.policies.setState(connection!.id, 'count', {
      state: 'quarantined',
      reviewedHash: null,
      updatedAt: new Date().toISOString(),
    });
    const waiting = (await actionsNow()).filter(
      (a) => a.review === 'changed' || a.review === 'new',
    );
    const cls = 'read';
    expect(
      waiting
        .filter((a) => a.classification === cls)
        .map((a) => a.review)
        .sort(),
    ).toEqual(['changed', 'new']);
    const page = await signedIn(PEOPLE.owner, `/connections/${CONNECTION}`);
    const row = page.locator(`fieldset.by-class [data-class="${cls}"]`);
    await row.waitFor();
    await lookAt(page, 'console-review-by-class');
    await row.getByRole('button', { name: 'Approve all 2 reads' }).click();
    await page.getByRole('status').filter({ hasText: 'Approved: 2 reads' }).waitFor();
    await page.locator('article[data-action]').first().waitFor({ state: 'detached' });
    const after = await actionsNow();
    // The new read takes its class default: on.
    expect(after.find((a) => a.action === 'count')?.state).toBe('enabled');
    for (const a of waiting.filter((w) => w.classification === cls))
      expect(after.find((x) => x.name === a.name)?.review).toBe('reviewed');

    // One action, on its own: off, then on again; the others stay as they were.
    const one = after.find((a) => a.state === 'enabled')!;
    const others = () =>
      actionsNow().then((list) =>
        list.filter((a) => a.name !== one.name).map((a) => `${a.name}:${a.state}`),
      );
    const before = await others();
    const line = page.locator(`#per-action ~ table tr[data-action="${one.name}"]`);
    await line.getByRole('button', { name: /^Turn off/ }).click();
    await line.locator('.badge', { hasText: /^off$/ }).waitFor();
    expect((await actionsNow()).find((a) => a.name === one.name)?.state).toBe('disabled');
    await lookAt(page, 'console-action-policies');
    await line.getByRole('button', { name: /^Turn on/ }).click();
    await line.locator('.badge', { hasText: /^on$/ }).waitFor();
    expect((await actionsNow()).find((a) => a.name === one.name)?.state).toBe('enabled');
    expect(await others()).toEqual(before);
    await page.context().close();
  });

  it('labels an uncurated remote server Unverified, with its host, on its review page and each access section', async () => {
    const host = new URL(running.upstream.url).host;
    const page = await signedIn(PEOPLE.viewer, `/connections/${CONNECTION}`);
    const label = `.server-label.unverified[data-unverified-host="${host}"]`;
    const labelled = (section: string) => page.locator(`${section} ${label}`);
    // Under the page's title, with what it means.
    const top = page.locator(`main > ${label}`);
    await top.waitFor();
    await expect(top.textContent()).resolves.toContain('Unverified server');
    await expect(top.textContent()).resolves.toContain('No curated definition vouches');
    // Review, policies by class, grants, policies by action: each says which server it acts on.
    for (const section of ['#policies', '#grants', '#per-action']) {
      await labelled(section).waitFor();
      const text = await labelled(section).textContent();
      expect(text).toContain('Unverified server');
      expect(text).toContain(host);
    }
    await lookAt(page, 'console-review-unverified');
    await page.context().close();
  });

  it('grants an agent chosen actions with its personal credential', async () => {
    const names = (await actionsNow()).filter((a) => a.state !== 'retired').map((a) => a.name);
    const chosen = names.slice(0, 2);
    const page = await signedIn(PEOPLE.operator, `/connections/${CONNECTION}`);
    await page.getByLabel('Agent', { exact: true }).selectOption('deploy-bot');
    await page.getByLabel('Scope').selectOption('actions');
    const list = page.getByRole('group', { name: 'Actions it may call' });
    for (const name of chosen) await list.getByRole('checkbox', { name }).check();
    await page.getByRole('radio', { name: /^Personal/ }).check();
    await lookAt(page, 'console-grant-chosen');
    await page.getByRole('button', { name: 'Grant', exact: true }).click();
    const row = page.locator('tr[data-grant="deploy-bot"]');
    await row.waitFor();
    await expect(row.locator('td[data-label=Credential]').textContent()).resolves.toBe('personal');
    for (const name of chosen)
      await expect(row.locator('td[data-label=Scope]').textContent()).resolves.toContain(name);
    const grants = await listGrants(ctx(), { workspace: 'default' });
    const given = grants.find((g) => 'agent' in g && g.agent === 'deploy-bot')!;
    expect([given.scope, given.credentialMode, given.actions.length]).toEqual([
      'actions',
      'personal',
      2,
    ]);
    await row.getByRole('button', { name: /^Revoke/ }).click();
    await row.waitFor({ state: 'detached' });
    await page.context().close();
  });

  it("lets an owner choose a client's step-up form on the OAuth clients page, an operator only see it", async () => {
    const { clientId } = await approvedClient();
    const operator = await signedIn(PEOPLE.operator, '/clients');
    const seen = operator.locator('tr[data-consent]', { hasText: clientId });
    await seen.waitFor();
    await expect(seen.locator('td[data-label=Step-up]').textContent()).resolves.toContain(
      'HTTP 403',
    );
    await expect(seen.getByRole('combobox').count()).resolves.toBe(0);
    await operator.context().close();

    const page = await signedIn(PEOPLE.owner, '/clients');
    const row = page.locator('tr[data-consent]', { hasText: clientId });
    await row.waitFor();
    await row.getByRole('combobox', { name: /^Step-up form for/ }).selectOption('result');
    await page.getByRole('status').filter({ hasText: 'steps up as chosen' }).waitFor();
    await row.locator('td[data-label=Step-up]', { hasText: 'chosen by an owner' }).waitFor();
    await expect(row.locator('td[data-label=Step-up]').textContent()).resolves.toContain(
      'isError result',
    );
    const chosen = await showClient(ctx(), { workspace: 'default', id: clientId });
    expect([chosen.form, chosen.why]).toEqual(['result', 'chosen']);
    await lookAt(page, 'console-clients-step-up');
    await page.context().close();
  });

  it("lists a member's approved client by its own name as text; an operator revokes it", async () => {
    const { clientId, refresh } = await approvedClient();
    const viewer = await signedIn(PEOPLE.viewer, '/clients');
    const seen = viewer.locator(`tr[data-consent]`, { hasText: clientId });
    await seen.waitFor();
    await expect(seen.getByRole('button', { name: /^Revoke/ }).count()).resolves.toBe(0);
    await viewer.context().close();

    const page = await signedIn(PEOPLE.operator, '/clients');
    const row = page.locator('tr[data-consent]', { hasText: clientId });
    await row.waitFor();
    const client = await row.locator('td[data-label=Client]').textContent();
    expect(client).toContain('<img src=x onerror="document.title=1">');
    expect(client).toContain('\\u202eevil\\x1b[31m');
    await expect(page.locator('main img').count()).resolves.toBe(0);
    await expect(page.title()).resolves.not.toBe('1');
    await expect(row.locator('td[data-label="Approved by"]').textContent()).resolves.toBe(
      PEOPLE.member,
    );
    await lookAt(page, 'console-clients');
    await row.getByRole('button', { name: /^Revoke/ }).click();
    await page.getByRole('status').filter({ hasText: 'Revoked' }).waitFor();
    await row.locator('td[data-label=Status]', { hasText: /^revoked/ }).waitFor();
    const refreshed = await tokenRequest(running.url, {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: refresh,
    });
    expect(refreshed.body.error).toBe('invalid_grant');
    await page.context().close();
  });

  it('lets an owner add a member, change the role and remove them, and keeps the last owner', async () => {
    const page = await signedIn(PEOPLE.owner, '/members');
    await page.locator(`tr[data-member="${PEOPLE.viewer}"]`).waitFor();
    await page.getByLabel('Member name').fill('nora');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Add member' }).click();
    const nora = page.locator('tr[data-member="nora"]');
    await nora.locator('.badge', { hasText: /^viewer$/ }).waitFor();
    await lookAt(page, 'console-members');

    await nora.getByLabel('New role of nora').selectOption('operator');
    await nora.getByRole('button', { name: /^Change role/ }).click();
    await nora.locator('.badge', { hasText: /^operator$/ }).waitFor();
    const roles = async () =>
      Object.fromEntries(
        (await listMembers(ctx(), { workspace: 'default' })).map((m) => [m.name, m.role]),
      );
    expect((await roles()).nora).toBe('operator');

    await nora.getByRole('button', { name: /^Remove/ }).click();
    await nora.getByRole('button', { name: 'Remove nora and their apps' }).click();
    await nora.waitFor({ state: 'detached' });
    expect((await roles()).nora).toBeUndefined();

    // The only owner stays one: the refusal names its reason and the field.
    const me = page.locator(`tr[data-member="${PEOPLE.owner}"]`);
    await me.getByLabel(`New role of ${PEOPLE.owner}`).selectOption('viewer');
    await me.getByRole('button', { name: /^Change role/ }).click();
    const alert = page.getByRole('alert');
    await expect(alert.textContent()).resolves.toContain('conflict');
    await expect(alert.textContent()).resolves.toContain('only owner');
    expect((await roles())[PEOPLE.owner]).toBe('owner');
    // The refused choice is not left showing as if it had been made.
    await expect(me.getByLabel(`New role of ${PEOPLE.owner}`).inputValue()).resolves.toBe('owner');
    await lookAt(page, 'console-members-last-owner');
    await page.context().close();
  });

  it('shows a viewer the members without a way to change them', async () => {
    const page = await signedIn(PEOPLE.viewer, '/members');
    await page.locator(`tr[data-member="${PEOPLE.owner}"]`).waitFor();
    await expect(page.locator('main').textContent()).resolves.toContain(
      'Only owners add, change or remove members.',
    );
    await expect(page.getByRole('button', { name: 'Add member' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: /^Remove/ }).count()).resolves.toBe(0);
    await lookAt(page, 'console-members-viewer');
    // The session ends on the server (here: signed out behind the page's back); the next
    // request sends the page back to the sign-in, saying why.
    await page.evaluate(() => fetch('/console/api/sign-out', { method: 'POST' }));
    await page.getByRole('link', { name: 'OAuth clients' }).click();
    await page.getByLabel('Member name').waitFor();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Your session ended');
    await page.context().close();
  });
});
