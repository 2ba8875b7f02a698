import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listActions } from '../../../runtime/core/operator/actions.ts';
import { HAS_CHROMIUM, launchChromium } from '../../support/chromium.ts';
import { type ConsoleGateway, PEOPLE, startConsoleGateway } from '../../support/console.ts';
import { lookAt } from '../../support/console-look.ts';
import { signedInPage } from '../../support/console-sign-in.ts';
import { type OAuthUpstream, startOAuthUpstream } from '../../support/remote/oauth-upstream.ts';
import { startUpstream, type Upstream } from '../../support/remote/upstream-servers.ts';

const HOSTILE = '<img src=x onerror="document.title=1"> Reports the weather \u202eevil\x1b[31m now';
const SECRET = 'x-api-key-value-never-shown-9931';
const CLIENT_SECRET = 'hand-made-client-secret-5521';

let running: ConsoleGateway;
let browser: Browser;
let open: Upstream;
let keyed: Upstream;
let oauth: OAuthUpstream;
let preregistered: OAuthUpstream;

beforeAll(async () => {
  [running, browser, open, keyed, oauth] = await Promise.all([
    startConsoleGateway(),
    launchChromium(),
    startUpstream('modern'),
    startUpstream('modern', { requireHeader: { name: 'X-Api-Key', value: SECRET } }),
    startOAuthUpstream({ tenant: 'console' }),
  ]);
  // Registration off: the provider knows only a client registered by hand, for this gateway's callback.
  preregistered = await startOAuthUpstream({
    tenant: 'hand-made',
    registration: false,
    clients: [
      {
        client_id: 'hand-made-client',
        client_secret: CLIENT_SECRET,
        redirect_uris: [`${running.url}/connect/oauth/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
  });
  open.setDescription(HOSTILE);
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([
    running?.close(),
    open?.close(),
    keyed?.close(),
    oauth?.close(),
    preregistered?.close(),
  ]);
});

async function connectPage(): Promise<Page> {
  const page = await signedInPage(browser, running.url, PEOPLE.owner);
  await page.getByRole('link', { name: 'Connect your own MCP server' }).click();
  await page.getByRole('heading', { name: 'Connect your own MCP server' }).waitFor();
  return page;
}

async function checkLink(page: Page, url: string, name?: string): Promise<void> {
  await page.getByLabel('Server address').fill(url);
  if (name) await page.getByLabel(/^Connection name/).fill(name);
  await page.getByRole('button', { name: 'Check link' }).click();
}

function unverified(page: Page, url: string) {
  return page.locator(`section.step [data-unverified-host="${new URL(url).host}"]`);
}

/** The gateway's page names the host again; then the provider's own sign-in and consent forms. */
async function signInUpstream(page: Page, host: string): Promise<void> {
  await page.getByRole('button', { name: `Continue to ${host}` }).click();
  await page.locator('input[name=login]').fill('alice');
  await page.locator('input[name=password]').fill('any');
  await page.locator('button[type=submit]').click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

const ctx = () => running.gateway.running.gateway.operator('cli');

describe.skipIf(!HAS_CHROMIUM)(
  'Connect your own MCP server in Chromium',
  { timeout: 240_000 },
  () => {
    it('checks an address that needs nothing, reviews its tools as text, and approves them', async () => {
      const page = await connectPage();
      await expect(page.locator('details.advanced-auth').getAttribute('open')).resolves.toBeNull();
      await lookAt(page, 'connect-own-address');
      await checkLink(page, open.url, 'open-one');
      await page.getByRole('heading', { name: 'Review the tools found' }).waitFor();
      await expect(unverified(page, open.url).textContent()).resolves.toContain(
        'Unverified server',
      );
      const described = page.locator('[data-description]', { hasText: 'Reports the weather' });
      await described.first().waitFor();
      const text = await described.first().textContent();
      expect(text).toContain('<img src=x onerror="document.title=1">');
      expect(text).toContain('\\u202eevil\\x1b[31m');
      await expect(page.locator('main img').count()).resolves.toBe(0);
      await expect(page.title()).resolves.not.toBe('1');
      await lookAt(page, 'connect-own-review');
      await page.getByRole('button', { name: /^Approve all/ }).click();
      await page.getByRole('status').filter({ hasText: 'Approved every action' }).waitFor();
      const actions = await listActions(ctx(), { workspace: 'default', connection: 'open-one' });
      expect(new Set(actions.map((a) => a.review))).toEqual(new Set(['reviewed']));
      await lookAt(page, 'connect-own-approved');
      await page.context().close();
    });

    it('keeps the draft of a server that wants a header, lists it, and continues it with the header', async () => {
      const page = await connectPage();
      await checkLink(page, keyed.url, 'keyed');
      await page.getByRole('heading', { name: 'This server needs a key or headers' }).waitFor();
      await expect(page.locator('details.advanced-auth').getAttribute('open')).resolves.toBe('');
      await lookAt(page, 'connect-own-credential');
      // The draft waits in the connections list, and is continued from there.
      await page.getByRole('link', { name: '← Connections' }).click();
      const row = page.locator('tr[data-connection="keyed"]');
      await expect(row.textContent()).resolves.toContain('draft: needs a key or headers');
      await lookAt(page, 'connect-own-draft-listed');
      await row.getByRole('link', { name: /^Continue/ }).click();
      await page.getByRole('heading', { name: 'This server needs a key or headers' }).waitFor();
      await expect(page.getByLabel('Server address').inputValue()).resolves.toBe(keyed.url);
      await page.getByLabel('Custom headers').check();
      await page.getByLabel('Header name').fill('X-Api-Key');
      await page.getByLabel('Header value').fill(SECRET);
      await page.getByRole('button', { name: 'Check link' }).click();
      await page.getByRole('heading', { name: 'Review the tools found' }).waitFor();
      await expect(unverified(page, keyed.url).count()).resolves.toBe(1);
      // Write-only: the value is gone from the form and from the page; the name stays.
      await expect(page.getByLabel('Header value').inputValue()).resolves.toBe('');
      await expect(page.getByLabel('Header name').inputValue()).resolves.toBe('X-Api-Key');
      expect(await page.content()).not.toContain(SECRET);
      await lookAt(page, 'connect-own-headers-review');
      await page.context().close();
    });

    it('signs in upstream to continue, naming the host, and comes back to review the tools', async () => {
      const page = await connectPage();
      await checkLink(page, oauth.mcp.url, 'signed');
      await page.getByRole('heading', { name: 'Sign in to continue' }).waitFor();
      const issuerHost = new URL(oauth.issuer).host;
      await expect(page.locator('[data-sign-in-host]').textContent()).resolves.toBe(issuerHost);
      await expect(unverified(page, oauth.mcp.url).count()).resolves.toBe(1);
      await lookAt(page, 'connect-own-sign-in');
      await page.getByRole('button', { name: 'Sign in to continue' }).click();
      // The gateway's page names the host again, then the provider's own forms.
      await page.getByRole('button', { name: `Continue to ${issuerHost}` }).click();
      await page.locator('input[name=login]').fill('alice');
      await page.locator('input[name=password]').fill('any');
      await page.locator('button[type=submit]').click();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL(`${running.url}/console/#/connect/own/signed`);
      await page.getByRole('heading', { name: 'Review the tools found' }).waitFor();
      await expect(unverified(page, oauth.mcp.url).count()).resolves.toBe(1);
      await page.locator('[data-found]').first().waitFor();
      await lookAt(page, 'connect-own-signed-in-review');
      await page.context().close();
    });

    it('asks for a client registered by hand under Advanced authentication, then signs in with it', async () => {
      const page = await connectPage();
      await checkLink(page, preregistered.mcp.url, 'hand-made');
      await page.getByRole('heading', { name: 'Sign in to continue' }).waitFor();
      await page.getByRole('button', { name: 'Sign in to continue' }).click();
      const clientId = page.getByLabel('Client ID', { exact: true });
      await page.locator('#client-id-error').waitFor();
      await expect(clientId.getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(page.getByRole('alert').first().textContent()).resolves.toContain(
        'oauth_client_required',
      );
      await expect(page.locator('details.advanced-auth').getAttribute('open')).resolves.toBe('');
      await expect(page.getByLabel('Browser sign-in').isChecked()).resolves.toBe(true);
      await expect(page.locator('section.step').textContent()).resolves.toContain(
        'The draft connection hand-made is kept',
      );
      await lookAt(page, 'connect-own-client-needed');
      await clientId.fill('hand-made-client');
      await page.getByLabel('Client secret').fill(CLIENT_SECRET);
      await page.getByRole('button', { name: 'Sign in to continue' }).click();
      await signInUpstream(page, new URL(preregistered.issuer).host);
      await page.waitForURL(`${running.url}/console/#/connect/own/hand-made`);
      await page.getByRole('heading', { name: 'Review the tools found' }).waitFor();
      await expect(unverified(page, preregistered.mcp.url).count()).resolves.toBe(1);
      expect(await page.content()).not.toContain(CLIENT_SECRET);
      await page.context().close();
    });

    it('names the problem and the Server address field when the guard refuses the address', async () => {
      const page = await connectPage();
      await checkLink(page, 'http://0.0.0.0:9/mcp');
      const field = page.getByLabel('Server address');
      await page.locator('#server-address-error').waitFor();
      await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(page.locator('#server-address-error').textContent()).resolves.toContain(
        'private, loopback or reserved network',
      );
      await expect(page.getByRole('alert').first().textContent()).resolves.toContain(
        'remote_url_private',
      );
      await expect(page.locator('#server-address:focus').count()).resolves.toBe(1);
      await lookAt(page, 'connect-own-refused');
      await page.context().close();
    });

    it('pastes a config: the help gives the request for an agent, the header value is asked for, then reviewed', async () => {
      const page = await connectPage();
      await page.getByText('Advanced', { exact: true }).click();
      await page.getByRole('button', { name: /^Help: what to paste/ }).click();
      const request = page.getByLabel('Request for an agent');
      await expect(request.inputValue()).resolves.toContain('mcpServers');
      await expect(page.locator('#paste-help').textContent()).resolves.toContain(
        "consult the vendor's current documentation",
      );
      await lookAt(page, 'connect-own-paste-help');
      const placeholder = ['$', '{KEYED_API_KEY}'].join('');
      await page.getByLabel('Config (an mcpServers JSON object)').fill(
        JSON.stringify(
          {
            mcpServers: {
              pasted: { type: 'http', url: keyed.url, headers: { 'X-Api-Key': placeholder } },
            },
          },
          null,
          2,
        ),
      );
      await page.getByRole('button', { name: 'Read config' }).click();
      await page.getByLabel('X-Api-Key').fill(SECRET);
      await lookAt(page, 'connect-own-paste-values');
      await page.getByRole('button', { name: 'Connect pasted' }).click();
      await page.getByRole('heading', { name: 'Review the tools found' }).waitFor();
      await expect(unverified(page, keyed.url).count()).resolves.toBe(1);
      expect(await page.content()).not.toContain(SECRET);
      await lookAt(page, 'connect-own-paste-review');
      await page.context().close();
    });
  },
);
