/**
 * A member's access token from the gateway's own authorization server, for
 * a client registered by DCR: through the consent page's "Sign in with
 * <IdP>" (the company IdP's sign-in page answered as `person`), or with the
 * member's password. Each returns the access and refresh tokens, for a test
 * to look for in what it must never see.
 */
import { expect } from 'vitest';
import { authorizeAt, SignInBrowser } from '../remote/sign-in-browser.ts';
import { consent } from './consent-bot.ts';
import { authorizeUrl, exchange, pkce, registerClient } from './raw-flow.ts';

export interface MemberTokens {
  access: string;
  refresh: string;
}

/** The review page's hidden fields, approved by the signed-in member. */
async function approve(browser: SignInBrowser, gatewayUrl: string, html: string): Promise<URL> {
  const form: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    form[match[1]!] = match[2]!;
  const reply = await browser.request(`${gatewayUrl}/oauth/authorize`, {
    form: { ...form, decision: 'approve', scope: 'tools:read' },
  });
  expect(reply.status).toBe(303);
  return new URL(reply.headers.get('location')!);
}

export async function memberTokensThroughIdp(
  gatewayUrl: string,
  person: string,
  idp = 'acme',
): Promise<MemberTokens> {
  const client = await registerClient(gatewayUrl);
  const { verifier, challenge } = pkce();
  const browser = new SignInBrowser();
  const page = await browser.request(
    authorizeUrl(gatewayUrl, client, { code_challenge: challenge, scope: 'tools:read' }).href,
  );
  const field = (name: string) =>
    new RegExp(`name="${name}" value="([^"]+)"`).exec(page.html)?.[1] ?? '';
  const started = await browser.request(`${gatewayUrl}/oauth/authorize`, {
    form: {
      request: field('request'),
      csrf: field('csrf'),
      decision: `idp:${idp}`,
      scope: 'tools:read',
    },
  });
  const callback = await authorizeAt(browser, started.headers.get('location')!, person);
  const review = await browser.request(callback);
  expect(review.status).toBe(200);
  const back = await approve(browser, gatewayUrl, review.html);
  const token = await exchange(gatewayUrl, client, {
    code: back.searchParams.get('code')!,
    verifier,
  });
  expect(token.status).toBe(200);
  return { access: String(token.body.access_token), refresh: String(token.body.refresh_token) };
}

export async function memberTokensByPassword(
  gatewayUrl: string,
  member: string,
  password: string,
): Promise<MemberTokens> {
  const client = await registerClient(gatewayUrl);
  const { verifier, challenge } = pkce();
  const { location } = await consent(
    authorizeUrl(gatewayUrl, client, { code_challenge: challenge, scope: 'tools:read' }),
    { member, password },
  );
  const token = await exchange(gatewayUrl, client, {
    code: location.searchParams.get('code')!,
    verifier,
  });
  expect(token.status).toBe(200);
  return { access: String(token.body.access_token), refresh: String(token.body.refresh_token) };
}
