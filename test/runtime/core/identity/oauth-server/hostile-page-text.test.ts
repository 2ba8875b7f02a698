/**
 * What a client registers is data on the authorization server's pages: a
 * client name carrying markup, bidirectional overrides, zero-width and
 * control characters is shown escaped on the consent page, so it can neither
 * add markup nor pass for another app's name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthGateway, startOAuthGateway } from '../../../../support/oauth/oauth-gateway.ts';
import { authorizeUrl, pkce } from '../../../../support/oauth/raw-flow.ts';

const HOSTILE_NAME = 'Trusted \u202eppa.lieve\u202c\u2066 \u200b<b>bold</b>\u001b[2J';

let oauth: OAuthGateway;
beforeAll(async () => {
  oauth = await startOAuthGateway();
});
afterAll(async () => {
  await oauth?.close();
});

describe('a hostile client name on the consent page', () => {
  it('is shown escaped, never obeyed', async () => {
    const redirectUri = 'http://127.0.0.1:53111/callback';
    const registered = await fetch(`${oauth.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: HOSTILE_NAME, redirect_uris: [redirectUri] }),
    });
    expect(registered.status).toBe(201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };

    const page = await fetch(
      authorizeUrl(oauth.url, { clientId, redirectUri }, { code_challenge: pkce().challenge }),
    );
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html.replaceAll('\n', '')).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
    expect(html).toContain(
      'Trusted \\u202eppa.lieve\\u202c\\u2066 \\u200b&#60;b&#62;bold&#60;/b&#62;\\x1b[2J',
    );
  });
});
