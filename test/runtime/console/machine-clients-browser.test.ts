/**
 * Machine clients on the OAuth clients page in Debian's Chromium against a
 * real gateway: one with a secret (granted the remote server) and one with
 * keys at a JWKS URL whose query is hostile text, shown inert (no markup
 * made of it, no script run, the escapes visible), no secret anywhere on the
 * page; a viewer sees them without a Remove button; an operator removes one
 * (a second click confirms) and it is gone, with its agent, from the store.
 * Axe-core and screenshots at 1280 and 375 px.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grant } from '../../../runtime/core/operator/grants.ts';
import {
  addMachineClient,
  listMachineClients,
} from '../../../runtime/core/operator/machine-clients.ts';
import { HAS_CHROMIUM, launchChromium } from '../../support/chromium.ts';
import {
  CONNECTION,
  type ConsoleGateway,
  PEOPLE,
  startConsoleGateway,
} from '../../support/console.ts';
import { lookAt } from '../../support/console-look.ts';
import { signedInPage } from '../../support/console-sign-in.ts';

// Stored as the operator wrote it (no spaces or control characters are taken).
const HOSTILE_JWKS =
  'https://ci.example/jwks.json?note=<img/src=x/onerror=document.title=1>\u202eevil';

let running: ConsoleGateway;
let browser: Browser;
let secret: string;

const ctx = () => running.gateway.running.gateway.operator('cli');

beforeAll(async () => {
  [running, browser] = await Promise.all([startConsoleGateway(), launchChromium()]);
  const workspace = 'default';
  secret = (await addMachineClient(ctx(), { workspace, name: 'nightly-build' })).secret ?? '';
  await addMachineClient(ctx(), { workspace, name: 'deployer', jwksUri: HOSTILE_JWKS });
  await grant(ctx(), { workspace, agent: 'nightly-build', connection: CONNECTION, scope: 'reads' });
});
afterAll(async () => {
  await browser?.close();
  await running?.close();
});

describe.skipIf(!HAS_CHROMIUM)('machine clients in Chromium', { timeout: 240_000 }, () => {
  it('lists machine clients inert and without a secret, and an operator removes one', async () => {
    const page = await signedInPage(browser, running.url, PEOPLE.operator, {
      fragment: '/clients',
    });
    const section = page.getByRole('region', { name: 'Machine clients' });
    const nightly = section.locator('tr', { hasText: 'nightly-build' });
    const deployer = section.locator('tr', { hasText: 'deployer' });
    await nightly.waitFor();
    await deployer.waitFor();
    expect(await nightly.textContent()).toContain('client_secret_basic');
    expect(await nightly.textContent()).toContain(`${CONNECTION}: reads`);
    const shownUri = (await deployer.textContent()) ?? '';
    expect(shownUri).toContain('private_key_jwt');
    expect(shownUri).toContain('<img/src=x/onerror=');
    expect(shownUri).not.toContain('\u202e');
    expect(shownUri).toContain('\\u202e');
    expect(await section.locator('img').count()).toBe(0);
    expect(await page.title()).not.toBe('1');
    const html = await page.content();
    expect(html).not.toContain(secret);
    expect(html).not.toContain(secret.slice(4));
    await lookAt(page, 'console-machine-clients');
    // Nothing wider than the narrowest phone the console is made for.
    await page.setViewportSize({ width: 320, height: 900 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      320,
    );

    await nightly.getByRole('button', { name: 'Remove nightly-build' }).click();
    await nightly.getByRole('button', { name: 'Remove nightly-build and its agent' }).click();
    await page.getByRole('status').filter({ hasText: 'Removed nightly-build' }).waitFor();
    await nightly.waitFor({ state: 'detached' });
    const left = await listMachineClients(ctx(), { workspace: 'default' });
    expect(left.map((c) => c.name)).toEqual(['deployer']);
    const agents = await running.gateway.running.gateway.store.agents.list(
      (await running.gateway.running.gateway.store.workspaces.byName('default'))!.id,
    );
    expect(agents.map((a) => a.name)).not.toContain('nightly-build');
    await page.close();
  });

  it('shows a viewer the machine clients without a Remove button', async () => {
    const page = await signedInPage(browser, running.url, PEOPLE.viewer, { fragment: '/clients' });
    const section = page.getByRole('region', { name: 'Machine clients' });
    await section.locator('tr', { hasText: 'deployer' }).waitFor();
    expect(await section.getByRole('button', { name: /^Remove/ }).count()).toBe(0);
    await page.close();
  });
});
