/**
 * The member pages' forms refuse a POST whose `Origin` is another site's (or
 * `null`) before reading it: the consent form, a member's own consents, a
 * sign-in link's page. Posted from the gateway's own origin, or with no
 * `Origin` at all (then the form's CSRF token decides), they go on as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_PAGE_PATH } from '../../../../../runtime/core/identity/oauth-client/upstream-sign-in.ts';
import { MEMBER_CONSENTS_PATH } from '../../../../../runtime/core/identity/oauth-server/member-consents-page.ts';
import { openConsentPage, postConsent } from '../../../../support/oauth/consent-bot.ts';
import {
  MEMBER,
  type OAuthGateway,
  startOAuthGateway,
} from '../../../../support/oauth/oauth-gateway.ts';
import {
  authorizeUrl,
  pkce,
  type RegisteredTestClient,
  registerClient,
} from '../../../../support/oauth/raw-flow.ts';

let running: OAuthGateway;
let client: RegisteredTestClient;
beforeAll(async () => {
  running = await startOAuthGateway();
  client = await registerClient(running.url);
});
afterAll(() => running?.close());

async function consentPage() {
  const page = await openConsentPage(
    authorizeUrl(running.url, client, { code_challenge: pkce().challenge }),
  );
  if (!('fields' in page)) throw new Error('no consent page');
  return page;
}

describe('the consent form', () => {
  it.each([
    ['another site', 'https://evil.example'],
    ['the gateway on another port', 'http://127.0.0.1:1'],
    ['an opaque origin', 'null'],
  ])('posted from %s: 403, no code', async (_name, origin) => {
    const reply = await postConsent(running.url, await consentPage(), MEMBER, {
      headers: { origin },
    });
    expect(reply.status).toBe(403);
    expect(reply.headers.get('location')).toBeNull();
    expect(await reply.text()).toContain('another site');
  });

  it('posted from its own origin: approved', async () => {
    const reply = await postConsent(running.url, await consentPage(), MEMBER, {
      headers: { origin: new URL(running.url).origin },
    });
    expect(reply.status).toBe(303);
    expect(new URL(reply.headers.get('location')!).searchParams.get('code')).toMatch(/^pco_/);
  });
});

describe.each([
  ['the page of a member’s own consents', MEMBER_CONSENTS_PATH],
  ['a sign-in link’s page', SIGN_IN_PAGE_PATH],
])('%s', (_name, path) => {
  const post = (headers: Record<string, string>) =>
    fetch(`${running.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({ member: MEMBER.member, password: MEMBER.password }),
    });

  it('refuses a form posted from another site before reading it', async () => {
    const reply = await post({ origin: 'https://evil.example' });
    expect(reply.status).toBe(403);
    expect(await reply.text()).toContain('another site');
  });

  it('reads the same form posted from its own origin (its CSRF token then decides)', async () => {
    const reply = await post({ origin: new URL(running.url).origin });
    expect(await reply.text()).not.toContain('another site');
  });
});
