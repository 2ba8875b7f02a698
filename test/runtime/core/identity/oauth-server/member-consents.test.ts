/**
 * A member takes back an app they connected, on `/oauth/consents`, without
 * an operator: sign in, see their own consents (never another member's),
 * revoke one, and its refresh token stops at once and its access token on
 * its next request. Every form needs its CSRF token; a session ends on sign
 * out, when the member is removed and when their password changes (a consent
 * review signed in before it, too); failed sign-ins count against the
 * same limits as the consent page's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addMember,
  removeMember,
  setMemberPassword,
} from '../../../../../runtime/core/operator/members.ts';
import { consent, openConsentPage, postConsent } from '../../../../support/oauth/consent-bot.ts';
import {
  MEMBER,
  type OAuthGateway,
  startOAuthGateway,
} from '../../../../support/oauth/oauth-gateway.ts';
import {
  authorizeUrl,
  exchange,
  mcpStatus,
  pkce,
  registerClient,
  tokenRequest,
} from '../../../../support/oauth/raw-flow.ts';

const OTHER = { member: 'grace', password: 'another long enough passphrase' } as const;
let running: OAuthGateway;

beforeAll(async () => {
  running = await startOAuthGateway();
  await addMember(running.gateway.running.gateway.operator('cli'), {
    workspace: 'default',
    name: OTHER.member,
    password: OTHER.password,
  });
});
afterAll(() => running?.close());

/** A browser's cookie jar for one path, and the page's hidden fields. */
class MemberBrowser {
  cookies = new Map<string, string>();
  fields: Record<string, string> = {};
  html = '';
  status = 0;

  async open(): Promise<this> {
    return this.#keep(await fetch(`${running.url}/oauth/consents`, { headers: this.#headers() }));
  }

  async post(fields: Record<string, string>): Promise<this> {
    const reply = await fetch(`${running.url}/oauth/consents`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.#headers() },
      body: new URLSearchParams(fields),
    });
    return this.#keep(reply);
  }

  signIn(answer: { member: string; password: string }): Promise<this> {
    return this.post({ action: 'sign-in', csrf: this.fields.csrf ?? '', ...answer });
  }

  revoke(consentId: string): Promise<this> {
    return this.post({ action: 'revoke', csrf: this.fields.csrf ?? '', consent: consentId });
  }

  /** The consent ids the page offers to revoke. */
  listed(): string[] {
    return [...this.html.matchAll(/name="consent" value="([^"]+)"/g)].map((m) => m[1]!);
  }

  #headers(): Record<string, string> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    return cookie ? { cookie } : {};
  }

  async #keep(reply: Response): Promise<this> {
    for (const line of reply.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const value = pair!.slice(at + 1);
      if (value === '') this.cookies.delete(pair!.slice(0, at));
      else this.cookies.set(pair!.slice(0, at), value);
    }
    this.status = reply.status;
    this.html = await reply.text();
    this.fields = {};
    for (const match of this.html.matchAll(/<input type="hidden" name="csrf" value="([^"]*)">/g)) {
      this.fields.csrf = match[1]!;
    }
    return this;
  }
}

async function connectedApp(answer: { member: string; password: string } = MEMBER) {
  const client = await registerClient(running.url);
  const { verifier, challenge } = pkce();
  const { location } = await consent(
    authorizeUrl(running.url, client, { code_challenge: challenge }),
    answer,
  );
  const tokens = await exchange(running.url, client, {
    code: location.searchParams.get('code')!,
    verifier,
  });
  expect(tokens.status).toBe(200);
  const store = running.gateway.running.gateway.store;
  const workspace = await store.workspaces.byName('default');
  const consents = await store.oauth.consents.list(workspace!.id);
  const made = consents.find((c) => c.clientId === client.clientId)!;
  return { client, tokens: tokens.body, consentId: made.id };
}

describe('a member revoking their own consents', () => {
  it('lists only the member’s own apps and revokes one: refresh stops at once, access on its next request', async () => {
    const mine = await connectedApp();
    const theirs = await connectedApp(OTHER);
    await running.grantConsentAgents();
    const access = String(mine.tokens.access_token);
    expect(await mcpStatus(running.url, access)).toBe(200);

    const browser = await (await new MemberBrowser().open()).signIn(MEMBER);
    expect(browser.status).toBe(200);
    expect(browser.listed()).toContain(mine.consentId);
    expect(browser.listed()).not.toContain(theirs.consentId);
    expect(browser.html).toContain('Read:');

    await browser.revoke(mine.consentId);
    expect(browser.status).toBe(200);
    expect(browser.html).toContain('no longer acts for you');
    expect(browser.listed()).not.toContain(mine.consentId);

    expect(await mcpStatus(running.url, access)).toBe(401);
    const refreshed = await tokenRequest(running.url, {
      grant_type: 'refresh_token',
      client_id: mine.client.clientId,
      refresh_token: String(mine.tokens.refresh_token),
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
    expect(await mcpStatus(running.url, String(theirs.tokens.access_token))).toBe(200);

    const store = running.gateway.running.gateway.store;
    const [event] = await store.audit.query({ action: 'oauth.consent.revoke' });
    expect(event).toMatchObject({ actorKind: 'member', subject: mine.consentId });
  });

  it('refuses to revoke another member’s consent, even by its id', async () => {
    const theirs = await connectedApp(OTHER);
    const browser = await (await new MemberBrowser().open()).signIn(MEMBER);
    await browser.revoke(theirs.consentId);
    expect(browser.status).toBe(404);
    expect(browser.html).toContain('no such app');
    const store = running.gateway.running.gateway.store;
    expect((await store.oauth.consents.byId(theirs.consentId))?.status).toBe('active');
  });

  it('needs the CSRF token on every form, the sign-in form included', async () => {
    const mine = await connectedApp();
    const forged = await new MemberBrowser().open();
    await forged.post({ action: 'sign-in', csrf: 'not-the-token', ...MEMBER });
    expect(forged.status).toBe(403);
    expect(forged.cookies.has('portcullis_member')).toBe(false);

    const browser = await (await new MemberBrowser().open()).signIn(MEMBER);
    await browser.post({ action: 'revoke', consent: mine.consentId });
    expect(browser.status).toBe(403);
    const store = running.gateway.running.gateway.store;
    expect((await store.oauth.consents.byId(mine.consentId))?.status).toBe('active');
    // The session a forged form reached is over.
    await browser.open();
    expect(browser.listed()).toEqual([]);
    expect(browser.html).toContain('Sign in');
  });

  it('says a wrong password is wrong, and ends a session on sign out and when the member is removed', async () => {
    const wrong = await (await new MemberBrowser().open()).signIn({
      member: MEMBER.member,
      password: 'not the password',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('wrong');

    const browser = await (await new MemberBrowser().open()).signIn(MEMBER);
    await browser.post({ action: 'sign-out', csrf: browser.fields.csrf! });
    expect(browser.html).toContain('signed out');
    const afterSignOut = await browser.revoke('anything');
    expect(afterSignOut.status).toBe(401);
    const store = running.gateway.running.gateway.store;
    const signedIn = await store.audit.query({ action: 'oauth.sign_in', decision: 'allowed' });
    expect(signedIn.length).toBeGreaterThan(0);
    expect(await store.audit.query({ action: 'oauth.sign_out' })).toHaveLength(1);

    const ctx = running.gateway.running.gateway.operator('cli');
    await addMember(ctx, {
      workspace: 'default',
      name: 'linus',
      password: 'temporary passphrase 1',
    });
    const leaving = await (await new MemberBrowser().open()).signIn({
      member: 'linus',
      password: 'temporary passphrase 1',
    });
    expect(leaving.status).toBe(200);
    await removeMember(ctx, { workspace: 'default', name: 'linus' });
    await leaving.open();
    expect(leaving.html).toContain('Sign in');
    expect(leaving.html).not.toContain('Apps that act for linus');
  });

  it("ends the member's sessions when their password changes: this page's, and a consent review's", async () => {
    const ctx = running.gateway.running.gateway.operator('cli');
    const ren = { member: 'ren', password: 'first passphrase of ren' };
    await addMember(ctx, { workspace: 'default', name: ren.member, password: ren.password });
    const page = await (await new MemberBrowser().open()).signIn(ren);
    expect(page.html).toContain('Apps that act for ren');
    // A consent request signed in on its first step: its review approves without a password.
    const client = await registerClient(running.url);
    const opened = await openConsentPage(
      authorizeUrl(running.url, client, { code_challenge: pkce().challenge }),
    );
    if (!('fields' in opened)) throw new Error(`no consent page: ${opened.status}`);
    const review = await postConsent(running.url, opened, ren, { fields: { decision: 'review' } });
    expect(review.status).toBe(200);
    const resealed = /name="request" value="([^"]+)"/.exec(await review.text())![1]!;

    await setMemberPassword(ctx, {
      workspace: 'default',
      name: ren.member,
      password: 'second passphrase of ren',
    });
    await page.open();
    expect(page.html).toContain('Sign in');
    expect(page.html).not.toContain('Apps that act for ren');
    const approved = await postConsent(
      running.url,
      { ...opened, fields: { ...opened.fields, request: resealed } },
      { member: '', password: '' },
    );
    expect(approved.status).toBe(400);
    expect(approved.headers.get('location')).toBeNull();
    expect(await approved.text()).toContain('has expired');
  });

  it('gives two members whose names share 24 characters agents of their own for one client', async () => {
    const ctx = running.gateway.running.gateway.operator('cli');
    const client = await registerClient(running.url);
    for (const name of ['platform-engineering-ops1', 'platform-engineering-ops2']) {
      await addMember(ctx, { workspace: 'default', name, password: 'a long enough passphrase' });
      const { location } = await consent(
        authorizeUrl(running.url, client, { code_challenge: pkce().challenge }),
        { member: name, password: 'a long enough passphrase' },
      );
      expect(location.searchParams.get('code')).toMatch(/^pco_/);
    }
  });

  it('serves the page unframeable, with no script', async () => {
    const reply = await fetch(`${running.url}/oauth/consents`);
    expect(reply.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(reply.headers.get('x-frame-options')).toBe('DENY');
    expect(await reply.text()).not.toContain('<script');
  });
});
