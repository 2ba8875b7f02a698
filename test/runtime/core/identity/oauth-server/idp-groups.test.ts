/**
 * Groups at the company's IdP become roles and grants (issue 35):
 * oidc-provider's groups claim in its signed ID token, mapped with
 * `portcullis idp map`, applied at each sign-in; a group removed at the IdP
 * takes back what it gave at the next sign-in, and `idp origins` says where
 * each role and grant came from. An operator's own grant is never the
 * group's to take; an unsigned token's groups claim gives nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { addIdentityProvider } from '../../../../../runtime/core/operator/identity-providers.ts';
import {
  type CompanyIdp,
  claimsOf,
  startCompanyIdp,
} from '../../../../support/identity/company-idp.ts';
import { type OAuthGateway, startOAuthGateway } from '../../../../support/oauth/oauth-gateway.ts';
import { authorizeAt, SignInBrowser } from '../../../../support/remote/sign-in-browser.ts';
import { runPortcullisHere } from '../../../../support/run-cli.ts';

const ENV = {
  PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
  PORTCULLIS_IDP_ACME_SECRET: 'company-secret-acme-7f3a9c2e5b',
};

let running: OAuthGateway;
let acme: CompanyIdp;
let env: Record<string, string>;

beforeAll(async () => {
  running = await startOAuthGateway({ environment: ENV });
  acme = await startCompanyIdp({
    tenant: 'acme',
    redirectUri: `${running.url}/sign-in/idp/callback`,
    people: {
      dana: { preferred_username: 'dana', groups: ['eng', 'ops'] },
      finn: { preferred_username: 'finn', groups: [] },
      gus: { preferred_username: 'gus', groups: [] },
      hana: { preferred_username: 'hana', groups: ['ops', 'eng'] },
    },
  });
  await addIdentityProvider(
    running.gateway.running.gateway.operator('test'),
    {
      workspace: 'default',
      name: 'acme',
      issuer: acme.issuer,
      clientId: acme.clientId,
      clientSecretEnv: 'PORTCULLIS_IDP_ACME_SECRET',
      groupsClaim: 'groups',
      scopes: 'openid profile groups',
    },
    running.url,
  );
  env = {
    ...ENV,
    PORTCULLIS_DATA_DIR: running.gateway.dataDir,
    PORTCULLIS_PUBLIC_URL: running.url,
  };
  for (const args of [
    ['idp', 'map', 'acme', '--group', 'ops', '--role', 'operator'],
    ['idp', 'map', 'acme', '--group', 'eng', '--grant', 'unikraft'],
  ]) {
    const done = await runPortcullisHere(args, env);
    expect(done.code, done.stderr).toBe(0);
  }
});
afterAll(async () => {
  await running?.close();
  await acme?.close();
});

async function signIn(person: string): Promise<{ status: number; role?: string }> {
  const browser = new SignInBrowser();
  const start = await browser.request(`${running.url}/sign-in/idp/acme`);
  const callback = await authorizeAt(browser, start.headers.get('location')!, person);
  const back = await browser.request(callback);
  if (back.status !== 303) return { status: back.status };
  const session = await browser.request(`${running.url}/console/api/session`);
  return {
    status: 303,
    role: (JSON.parse(session.html) as { member: { role: string } }).member.role,
  };
}

async function origins(
  member: string,
): Promise<Array<{ what: string; name: string; from: string }>> {
  const shown = await runPortcullisHere(['idp', 'origins', member, '--json'], env);
  expect(shown.code, shown.stderr).toBe(0);
  return JSON.parse(shown.stdout);
}

describe('groups become roles and grants', () => {
  it('gives the mapped role and grant at sign-in, and takes each back when its group goes', async () => {
    expect(await signIn('dana')).toEqual({ status: 303, role: 'operator' });
    expect(await origins('dana')).toEqual([
      { what: 'role', name: 'operator', from: 'idp:acme:ops' },
      { what: 'grant', name: 'unikraft', from: 'idp:acme:eng' },
    ]);
    const maps = await runPortcullisHere(['idp', 'maps', 'acme'], env);
    expect(maps.stdout).toContain('ops');
    expect(maps.stdout).toContain('unikraft');

    acme.people.dana!.groups = ['ops'];
    expect(await signIn('dana')).toEqual({ status: 303, role: 'operator' });
    expect(await origins('dana')).toEqual([
      { what: 'role', name: 'operator', from: 'idp:acme:ops' },
    ]);

    acme.people.dana!.groups = [];
    // Back to the provider's role for new members (member): no console.
    expect(await signIn('dana')).toEqual({ status: 403 });
    expect(await origins('dana')).toEqual([{ what: 'role', name: 'member', from: 'operator' }]);
    const events = await running.gateway.running.gateway.store.audit.query({
      action: 'idp.group.revoke',
    });
    expect(events).toHaveLength(1);
  });

  it('takes back at once what a group removed at the IdP gave, with idp sync', async () => {
    expect(await signIn('hana')).toEqual({ status: 303, role: 'operator' });
    acme.people.hana!.groups = ['eng'];
    const synced = await runPortcullisHere(['idp', 'sync', 'hana'], env);
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout).toContain('synced');
    expect(await origins('hana')).toEqual([
      { what: 'role', name: 'member', from: 'operator' },
      { what: 'grant', name: 'unikraft', from: 'idp:acme:eng' },
    ]);
    // The sign-in's subject tokens are kept (for a connection acting on hana's behalf).
    const store = running.gateway.running.gateway.store;
    const hana = (await store.identity.identity(acme.issuer, 'hana'))!.memberId;
    expect(await store.identity.latestSubjectTokens(hana)).toBeDefined();
    // Disabled at the IdP: its refresh is refused, and nothing the groups gave stays.
    acme.disable('hana');
    const refused = await runPortcullisHere(['idp', 'sync', 'hana'], env);
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.stdout).toContain('refused');
    expect(await origins('hana')).toEqual([{ what: 'role', name: 'member', from: 'operator' }]);
    // Nor does any connection act on the person's behalf any more.
    expect(await store.identity.latestSubjectTokens(hana)).toBeUndefined();
    expect(synced.stdout + refused.stdout).not.toContain(ENV.PORTCULLIS_IDP_ACME_SECRET);
  });

  it("leaves an operator's own grant alone, before and after the group", async () => {
    await signIn('finn');
    await grant(running.gateway.running.gateway.operator('test'), {
      workspace: 'default',
      member: 'finn',
      connection: 'unikraft',
      scope: 'all',
    });
    acme.people.finn!.groups = ['eng'];
    await signIn('finn');
    expect(await origins('finn')).toContainEqual({
      what: 'grant',
      name: 'unikraft',
      from: 'operator',
    });
    acme.people.finn!.groups = [];
    await signIn('finn');
    expect(await origins('finn')).toContainEqual({
      what: 'grant',
      name: 'unikraft',
      from: 'operator',
    });
  });

  it("gives nothing for an unsigned token's groups claim", async () => {
    expect((await signIn('gus')).status).toBe(403);
    acme.tamper = async (token) => acme.unsigned({ ...claimsOf(token), groups: ['ops', 'eng'] });
    try {
      expect((await signIn('gus')).status).toBe(401);
    } finally {
      acme.tamper = undefined;
    }
    expect(await origins('gus')).toEqual([{ what: 'role', name: 'member', from: 'operator' }]);
  });
});
