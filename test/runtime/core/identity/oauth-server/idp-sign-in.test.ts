/**
 * Members sign in through the company's identity provider (issue 35):
 * oidc-provider as two companies' IdPs, a browser over fetch (its cookies,
 * every redirect seen), through the console's and the consent page's
 * sign-in. A member is found by `iss` and `sub` alone: a rename at the IdP
 * keeps them, the same `sub` at two IdPs is two members, and a name or
 * e-mail address matching an existing member finds nobody. An ID token for
 * another audience, an unsigned one and one signed by another key are
 * refused, and so is a callback in another browser. The IdP's client
 * secret appears in no reply, page, audit event or log line.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLog } from '../../../../../runtime/compose/log.ts';
import { addIdentityProvider } from '../../../../../runtime/core/operator/identity-providers.ts';
import { addMember } from '../../../../../runtime/core/operator/members.ts';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.ts';
import {
  type CompanyIdp,
  claimsOf,
  startCompanyIdp,
} from '../../../../support/identity/company-idp.ts';
import { authorizeUrl, pkce, registerClient } from '../../../../support/oauth/raw-flow.ts';
import {
  authorizeAt,
  type Page,
  SignInBrowser,
} from '../../../../support/remote/sign-in-browser.ts';
import { runPortcullisHere } from '../../../../support/run-cli.ts';

const SECRETS = {
  PORTCULLIS_IDP_ACME_SECRET: 'company-secret-acme-7f3a9c2e5b',
  PORTCULLIS_IDP_GLOBEX_SECRET: 'company-secret-globex-7f3a9c2e5b',
};
const DEV = { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1', ...SECRETS };

let gateway: TestGateway;
let acme: CompanyIdp;
let globex: CompanyIdp;
let logged = '';
let cli = '';

beforeAll(async () => {
  const log = createLog({
    level: 'debug',
    destination: new Writable({
      write(chunk, _encoding, done) {
        logged += String(chunk);
        done();
      },
    }),
  });
  gateway = await startTestGateway({ environment: DEV, log });
  const redirectUri = `${gateway.url}/sign-in/idp/callback`;
  [acme, globex] = await Promise.all([
    startCompanyIdp({
      tenant: 'acme',
      redirectUri,
      people: {
        carol: { preferred_username: 'carol', email: 'carol@example.com' },
        erin: { preferred_username: 'erin', email: 'erin@example.com' },
        mallory: { preferred_username: 'mallory' },
      },
    }),
    startCompanyIdp({
      tenant: 'globex',
      redirectUri,
      people: { carol: { preferred_username: 'carol', email: 'carol@globex.example' } },
    }),
  ]);
  const env = { ...DEV, PORTCULLIS_DATA_DIR: gateway.dataDir, PORTCULLIS_PUBLIC_URL: gateway.url };
  const added = await runPortcullisHere(
    [
      'idp',
      'add',
      'acme',
      '--issuer',
      acme.issuer,
      '--client-id',
      acme.clientId,
      '--client-secret-env',
      'PORTCULLIS_IDP_ACME_SECRET',
      '--role',
      'operator',
    ],
    env,
  );
  expect(added.code, added.stderr).toBe(0);
  cli += added.stdout + added.stderr;
  const ctx = gateway.running.gateway.operator('test');
  await addIdentityProvider(
    ctx,
    {
      workspace: 'default',
      name: 'globex',
      issuer: globex.issuer,
      clientId: globex.clientId,
      clientSecretEnv: 'PORTCULLIS_IDP_GLOBEX_SECRET',
    },
    gateway.url,
  );
  // A member with a password whose name and e-mail an IdP person shares.
  await addMember(ctx, {
    workspace: 'default',
    name: 'erin',
    password: 'correct horse battery staple',
    role: 'owner',
  });
  for (const args of [
    ['idp', 'list'],
    ['idp', 'show', 'acme'],
    ['idp', 'list', '--json'],
  ]) {
    const shown = await runPortcullisHere(args, env);
    expect(shown.code, shown.stderr).toBe(0);
    cli += shown.stdout + shown.stderr;
  }
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([acme?.close(), globex?.close()]);
});

/** From `/sign-in/idp/<name>` through the IdP's login as `person` to the gateway's answer. */
async function consoleSignIn(
  browser: SignInBrowser,
  idp: string,
  person: string,
): Promise<{ callback: string; page: Page }> {
  const start = await browser.request(`${gateway.url}/sign-in/idp/${idp}`);
  expect(start.status).toBe(303);
  const callback = await authorizeAt(browser, start.headers.get('location')!, person);
  return { callback, page: await browser.request(callback) };
}

async function sessionOf(browser: SignInBrowser) {
  const reply = await browser.request(`${gateway.url}/console/api/session`);
  // biome-ignore lint/suspicious/noExplicitAny: the session reply is read field by field
  return { status: reply.status, body: JSON.parse(reply.html) as Record<string, any> };
}

async function members() {
  const store = gateway.running.gateway.store;
  const workspace = (await store.workspaces.byName('default'))!;
  return store.oauth.members.list(workspace.id);
}

describe('signing in with the company IdP', () => {
  it('makes a member on the first sign-in and opens a console session', async () => {
    const browser = new SignInBrowser();
    const { page } = await consoleSignIn(browser, 'acme', 'carol');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/console/');
    const session = await sessionOf(browser);
    expect(session.status).toBe(200);
    expect(session.body.member).toEqual({ name: 'carol', role: 'operator' });
    const store = gateway.running.gateway.store;
    const identity = await store.identity.identity(acme.issuer, 'carol');
    const member = (await members()).find((m) => m.name === 'carol');
    expect(identity?.memberId).toBe(member?.id);
  });

  it('keeps the member when the IdP renames the person', async () => {
    const before = await members();
    acme.people.carol!.preferred_username = 'caroline';
    try {
      const browser = new SignInBrowser();
      await consoleSignIn(browser, 'acme', 'carol');
      expect((await sessionOf(browser)).body.member.name).toBe('carol');
      expect(await members()).toHaveLength(before.length);
    } finally {
      acme.people.carol!.preferred_username = 'carol';
    }
  });

  it('makes two members of the same sub at two IdPs', async () => {
    const browser = new SignInBrowser();
    await consoleSignIn(browser, 'acme', 'carol');
    const atAcme = await gateway.running.gateway.store.identity.identity(acme.issuer, 'carol');
    const other = new SignInBrowser();
    const { page } = await consoleSignIn(other, 'globex', 'carol');
    // globex makes members without a console role: the console refuses them, the member exists.
    expect(page.status).toBe(403);
    expect(page.html).toContain('console_role_refused');
    const atGlobex = await gateway.running.gateway.store.identity.identity(globex.issuer, 'carol');
    expect(atGlobex).toBeDefined();
    expect(atGlobex!.memberId).not.toBe(atAcme!.memberId);
    const names = (await members()).map((m) => m.name);
    expect(names).toContain('carol');
    expect(names.filter((name) => name.startsWith('carol-'))).toHaveLength(1);
  });

  it('never finds an existing member by the name or e-mail address the IdP sends', async () => {
    const browser = new SignInBrowser();
    await consoleSignIn(browser, 'acme', 'erin');
    const session = await sessionOf(browser);
    expect(session.status).toBe(200);
    // The password member erin (an owner) is someone else: the IdP's erin is a new operator.
    expect(session.body.member.name).toMatch(/^erin-[0-9a-f]{6}$/);
    expect(session.body.member.role).toBe('operator');
    const erin = (await members()).find((m) => m.name === 'erin');
    expect(erin?.role).toBe('owner');
    const identity = await gateway.running.gateway.store.identity.identity(acme.issuer, 'erin');
    expect(identity?.memberId).not.toBe(erin?.id);
  });

  it('signs in on the consent page and goes on to its review step', async () => {
    const client = await registerClient(gateway.url);
    const { challenge } = pkce();
    const browser = new SignInBrowser();
    const page = await browser.request(
      authorizeUrl(gateway.url, client, { code_challenge: challenge }).href,
    );
    expect(page.html).toContain('value="idp:acme"');
    expect(page.html).toContain('Sign in with acme');
    const field = (name: string) =>
      new RegExp(`name="${name}" value="([^"]+)"`).exec(page.html)?.[1] ?? '';
    const started = await browser.request(`${gateway.url}/oauth/authorize`, {
      form: {
        request: field('request'),
        csrf: field('csrf'),
        decision: 'idp:acme',
        scope: 'tools:read',
      },
    });
    expect(started.status).toBe(303);
    const callback = await authorizeAt(browser, started.headers.get('location')!, 'carol');
    const review = await browser.request(callback);
    expect(review.status).toBe(200);
    expect(review.html).toContain('Signed in as <b id="signed-in">carol</b>');
    expect(review.html).toContain('value="approve"');
  });
});

describe('attacks on the IdP sign-in', () => {
  const refusedAt = async (step: string, tamper?: CompanyIdp['tamper'], person = 'mallory') => {
    const before = (await members()).length;
    acme.tamper = tamper;
    try {
      const browser = new SignInBrowser();
      const { page } = await consoleSignIn(browser, 'acme', person);
      expect(page.status).toBe(401);
      expect(page.html).toContain('idp_sign_in_failed');
      expect((await sessionOf(browser)).status).toBe(401);
    } finally {
      acme.tamper = undefined;
    }
    expect(await members()).toHaveLength(before);
    const events = await gateway.running.gateway.store.audit.query({
      action: 'oauth.sign_in',
      decision: 'denied',
    });
    expect(events.map((e) => e.subject)).toContain(`idp:acme:${step}`);
  };

  it('refuses an ID token for another audience, though the IdP signed it', async () => {
    await refusedAt('id_token', (token) =>
      acme.signWithIdpKey({ ...claimsOf(token), aud: 'another-client', azp: 'another-client' }),
    );
  });

  it('refuses an unsigned ID token, whatever groups it claims', async () => {
    await refusedAt('id_token', async (token) =>
      acme.unsigned({ ...claimsOf(token), groups: ['portcullis-owners'] }),
    );
  });

  it('refuses an ID token signed by a key the IdP never published', async () => {
    await refusedAt('id_token', (token) =>
      acme.signWithOtherKey({ ...claimsOf(token), groups: ['portcullis-owners'] }),
    );
  });

  it('refuses a callback opened in another browser', async () => {
    const browser = new SignInBrowser();
    const start = await browser.request(`${gateway.url}/sign-in/idp/acme`);
    const callback = await authorizeAt(browser, start.headers.get('location')!, 'mallory');
    const victim = new SignInBrowser();
    const page = await victim.request(callback);
    expect(page.status).toBe(401);
    expect(page.html).toContain('idp_sign_in_failed');
    expect((await sessionOf(victim)).status).toBe(401);
    // Taken once: the person's own browser cannot use it after that either.
    expect((await browser.request(callback)).status).toBe(401);
  });

  it('refuses an unknown provider and a callback without a pending sign-in', async () => {
    expect((await fetch(`${gateway.url}/sign-in/idp/nobody`, { redirect: 'manual' })).status).toBe(
      404,
    );
    const made = await fetch(`${gateway.url}/sign-in/idp/callback?code=x&state=made-up`);
    expect(made.status).toBe(401);
  });
});

describe("the IdP's secret", () => {
  it('appears in no command output, audit event, page, reply or log line', async () => {
    const store = gateway.running.gateway.store;
    const events = JSON.stringify(await store.audit.query({}));
    const options = await (await fetch(`${gateway.url}/console/api/sign-in/options`)).text();
    for (const secret of Object.values(SECRETS)) {
      expect(cli).not.toContain(secret);
      expect(events).not.toContain(secret);
      expect(options).not.toContain(secret);
      expect(logged).not.toContain(secret);
    }
    expect(cli).toContain('PORTCULLIS_IDP_ACME_SECRET');
    expect(cli).toContain(`${gateway.url}/sign-in/idp/callback`);
    expect(JSON.parse(options)).toEqual({
      providers: [
        { name: 'acme', href: '/sign-in/idp/acme' },
        { name: 'globex', href: '/sign-in/idp/globex' },
      ],
      password: true,
    });
  });
});
