/**
 * Clients get more than reads when the workspace's default says so
 * (`PORTCULLIS_OAUTH_DEFAULT_SCOPES`): the first 401 names those scopes, the
 * consent page shows each as a checkbox (reads first, destructive last and
 * marked) and the member approves them or fewer; a call that needs more is
 * refused `insufficient_scope` with the challenge to step up, and the MCP
 * SDK v2 client steps up through the same consent page, in Chromium.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchChromium } from '../../../../support/chromium.ts';
import { openConsentPage, postConsent } from '../../../../support/oauth/consent-bot.ts';
import { MemoryProvider } from '../../../../support/oauth/memory-provider.ts';
import {
  MEMBER,
  type OAuthGateway,
  READ_ARGS,
  READ_TOOL,
  startOAuthGateway,
  WRITE_ARGS,
  WRITE_TOOL,
} from '../../../../support/oauth/oauth-gateway.ts';
import { authorizeUrl, pkce, registerClient } from '../../../../support/oauth/raw-flow.ts';

const DEFAULT_SCOPES = 'tools:write tools:read';

let running: OAuthGateway;
let callback: Server;
let redirect: string;

beforeAll(async () => {
  running = await startOAuthGateway({
    environment: { PORTCULLIS_OAUTH_DEFAULT_SCOPES: DEFAULT_SCOPES },
  });
  callback = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>client</title><p>back at the client</p>');
  });
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  redirect = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/oauth/callback`;
});
afterAll(async () => {
  await new Promise((resolve) => callback?.close(resolve));
  await running?.close();
});

describe('the first challenge', () => {
  it.each([
    ['/mcp', '/mcp'],
    ["one connection's endpoint", '/mcp/c/unikraft'],
  ])('names the default scopes on %s', async (_name, path) => {
    const reply = await fetch(`${running.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toContain('scope="tools:read tools:write"');
  });
});

describe('the consent page approves what the member leaves checked', () => {
  it('shows one checkbox per scope asked, reads first, destructive last and marked', async () => {
    const client = await registerClient(running.url);
    const page = await openConsentPage(
      authorizeUrl(running.url, client, {
        code_challenge: pkce().challenge,
        scope: 'tools:destructive tools:write tools:read',
      }),
    );
    if (!('fields' in page)) throw new Error(`no consent page: ${page.status}`);
    expect(page.checked).toEqual(['tools:read', 'tools:write', 'tools:destructive']);
    expect(page.html).toMatch(
      /<label class="scope destructive"><input type="checkbox" name="scope" value="tools:destructive" checked><span><span class="mark">Destructive<\/span>/,
    );
  });

  it('gives a client that asks for no scope the default scopes', async () => {
    const client = await registerClient(running.url);
    const page = await openConsentPage(
      authorizeUrl(running.url, client, { code_challenge: pkce().challenge }),
    );
    if (!('fields' in page)) throw new Error(`no consent page: ${page.status}`);
    expect(page.checked).toEqual(['tools:read', 'tools:write']);
  });

  it.each([
    [
      'every scope asked',
      { checked: ['tools:read', 'tools:write'], want: 'tools:read tools:write' },
    ],
    ['fewer', { checked: ['tools:read'], want: 'tools:read' }],
    [
      'one not asked for, which is ignored',
      { checked: ['tools:read', 'tools:destructive'], want: 'tools:read' },
    ],
    ['none', { checked: [], want: 400 }],
    ['only one not asked for', { checked: ['tools:destructive'], want: 400 }],
  ] as const)('with %s checked', async (_name, { checked, want }) => {
    const client = await registerClient(running.url);
    const { verifier, challenge } = pkce();
    const page = await openConsentPage(
      authorizeUrl(running.url, client, { code_challenge: challenge }),
    );
    if (!('fields' in page)) throw new Error(`no consent page: ${page.status}`);
    const reply = await postConsent(running.url, page, { ...MEMBER, scopes: checked });
    if (typeof want === 'number') {
      expect(reply.status).toBe(want);
      const html = await reply.text();
      expect(html).toContain('role="alert"');
      // The page comes back with what the person left checked, still unchecked otherwise.
      expect(html).not.toContain('value="tools:write" checked');
      return;
    }
    expect(reply.status).toBe(303);
    const code = new URL(reply.headers.get('location')!).searchParams.get('code')!;
    const tokens = await fetch(`${running.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        code_verifier: verifier,
        resource: `${running.url}/mcp`,
      }),
    });
    expect(((await tokens.json()) as { scope: string }).scope).toBe(want);
  });
});

describe.skipIf(!HAS_CHROMIUM)('the MCP SDK v2 client, the member in Chromium', () => {
  let browser: Browser;
  const provider = new MemoryProvider(() => redirect, 'SDK v2 step-up test');
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  /** The member signs in on the consent page, leaves `keep` checked, approves: the callback's query. */
  async function approveInBrowser(url: URL, keep: readonly string[]): Promise<URLSearchParams> {
    const page = await browser.newPage();
    await page.goto(url.href);
    for (const box of await page.getByRole('checkbox').all()) {
      const scope = await box.getAttribute('value');
      await box.setChecked(keep.includes(scope ?? ''));
    }
    await page.getByLabel('Member name').fill(MEMBER.member);
    await page.getByLabel('Password').fill(MEMBER.password);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForSelector('#signed-in');
    await Promise.all([
      page.waitForURL(/\/oauth\/callback\?/),
      page.getByRole('button', { name: 'Approve' }).click(),
    ]);
    const query = new URL(page.url()).searchParams;
    await page.close();
    return query;
  }

  async function connected(): Promise<Client> {
    const client = new Client({ name: 'sdk-v2-step-up', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`), { authProvider: provider }),
    );
    return client;
  }

  it('asks for the default scopes, gets the fewer its member approved, then steps up through the consent page to the scope the challenge names, and the write goes through', async () => {
    const first = new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`), {
      authProvider: provider,
    });
    await expect(
      new Client({ name: 'sdk-v2-step-up', version: '1.0.0' }).connect(first),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const url = provider.authorizationUrl!;
    expect(url.searchParams.get('scope')).toBe('tools:read tools:write');
    await first.finishAuth(await approveInBrowser(url, ['tools:read']));
    expect(provider.stored?.scope).toBe('tools:read');
    await running.grantConsentAgents();

    const transport = new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`), {
      authProvider: provider,
    });
    const client = new Client({ name: 'sdk-v2-step-up', version: '1.0.0' });
    await client.connect(transport);
    const read = await client.callTool({ name: READ_TOOL, arguments: READ_ARGS });
    expect(read.isError).toBeFalsy();
    // The write needs tools:write: the gateway answers 403 with the challenge,
    // and the client steps up by itself, to the union of what it has and what
    // the challenge names, sending the member back to the consent page.
    provider.authorizationUrl = undefined;
    await expect(
      client.callTool({ name: WRITE_TOOL, arguments: WRITE_ARGS }),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const stepUpUrl = provider.authorizationUrl!;
    expect(stepUpUrl.searchParams.get('scope')).toBe('tools:read tools:write');
    const back = await approveInBrowser(stepUpUrl, ['tools:read', 'tools:write']);
    await transport.finishAuth(back);
    expect(provider.stored?.scope).toBe('tools:read tools:write');
    await client.close();

    const steppedUp = await connected();
    const written = await steppedUp.callTool({ name: WRITE_TOOL, arguments: WRITE_ARGS });
    expect(written.isError).toBeFalsy();
    await steppedUp.close();
  });
});
