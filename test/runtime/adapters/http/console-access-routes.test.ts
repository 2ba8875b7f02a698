/**
 * The console's access routes on a real gateway: members (every console role
 * lists them, owners alone add, re-role and remove them, the last owner is
 * kept), OAuth consents made by a real sign-in through the gateway's own
 * authorization server (listed with who approved which client, with which
 * scopes; revoked by an operator, after which the client's refresh token is
 * refused), grants of chosen actions with the agent's personal credential,
 * review a class at a time and per-action policy; a viewer's or an
 * operator's forged change refused where it must be, another workspace out
 * of reach, every change audited with the member as its actor; and the
 * session cookie renewed by every request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeActions, listActions } from '../../../../runtime/core/operator/actions.ts';
import { refreshRemote } from '../../../../runtime/core/operator/remote-refresh.ts';
import {
  CONNECTION,
  type ConsoleGateway,
  consoleClient,
  OTHER,
  PASSWORD,
  PEOPLE,
  startConsoleGateway,
} from '../../../support/console.ts';
import { consent } from '../../../support/oauth/consent-bot.ts';
import {
  authorizeUrl,
  exchange,
  pkce,
  registerClient,
  tokenRequest,
} from '../../../support/oauth/raw-flow.ts';

let running: ConsoleGateway;

beforeAll(async () => {
  running = await startConsoleGateway();
});
afterAll(async () => {
  await running?.close();
});

async function as(name: string) {
  const client = consoleClient(running.url);
  expect((await client.signIn(name)).status).toBe(200);
  return client;
}

/** The newest audit event of this action in the owner's workspace. */
async function lastAudit(action: string) {
  const owner = await as(PEOPLE.owner);
  return (await owner.call('GET', `/audit?action=${action}`)).body.events[0];
}

describe('members in the console', () => {
  it('lists members to every console role, without a password hash, and none of another workspace', async () => {
    for (const name of [PEOPLE.viewer, PEOPLE.operator, PEOPLE.owner]) {
      const listed = await (await as(name)).call('GET', '/members');
      expect(listed.status).toBe(200);
      const roles = Object.fromEntries(
        listed.body.map((m: { name: string; role: string }) => [m.name, m.role]),
      );
      expect(roles).toMatchObject({
        [PEOPLE.owner]: 'owner',
        [PEOPLE.operator]: 'operator',
        [PEOPLE.viewer]: 'viewer',
        [PEOPLE.member]: 'member',
      });
      expect(roles[PEOPLE.otherOwner]).toBeUndefined();
      expect(JSON.stringify(listed.body)).not.toMatch(/passwordHash|scrypt/i);
    }
  });

  it("refuses an operator's and a viewer's member changes on the server, audited as denied", async () => {
    for (const name of [PEOPLE.operator, PEOPLE.viewer]) {
      const client = await as(name);
      const added = await client.call('POST', '/members', {
        name: `sneaky-${name}`,
        password: PASSWORD,
        role: 'owner',
      });
      expect([added.status, added.body.error.code, added.body.error.field]).toEqual([
        403,
        'console_role_refused',
        'role',
      ]);
      const raised = await client.call('POST', `/members/${name}/role`, { role: 'owner' });
      expect(raised.body.error.code).toBe('console_role_refused');
      const removed = await client.call('POST', `/members/${PEOPLE.owner}/remove`);
      expect(removed.body.error.code).toBe('console_role_refused');
    }
    const operator = await as(PEOPLE.operator);
    const refused = await operator.call('POST', '/members', { name: 'x', password: PASSWORD });
    expect(refused.body.error.message).toContain('only owners change its members');
    const members = (await operator.call('GET', '/members')).body.map(
      (m: { name: string; role: string }) => `${m.name}:${m.role}`,
    );
    expect(members).toContain(`${PEOPLE.operator}:operator`);
    expect(members).toContain(`${PEOPLE.viewer}:viewer`);
    expect(members).toContain(`${PEOPLE.owner}:owner`);
    expect(members.some((m: string) => m.startsWith('sneaky-'))).toBe(false);
    expect(await lastAudit('console.change')).toMatchObject({
      actorName: `member ${PEOPLE.operator}`,
      subject: 'POST /members',
      decision: 'denied',
      reason: 'console_role_refused',
    });
  });

  it('lets an owner add a member who then signs in, change their role, and remove them, audited as the owner', async () => {
    const owner = await as(PEOPLE.owner);
    const added = await owner.call('POST', '/members', {
      name: 'nina',
      password: PASSWORD,
      role: 'viewer',
    });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ name: 'nina', role: 'viewer' });
    expect(JSON.stringify(added.body)).not.toContain(PASSWORD);
    expect(await lastAudit('member.add')).toMatchObject({
      actorName: `member ${PEOPLE.owner}`,
      subject: added.body.id,
      decision: 'allowed',
    });
    const nina = await as('nina');
    expect((await nina.call('GET', '/session')).body.member.role).toBe('viewer');

    const weak = await owner.call('POST', '/members', { name: 'weak', password: 'short' });
    expect([weak.status, weak.body.error.code, weak.body.error.field]).toEqual([
      400,
      'invalid_input',
      'password',
    ]);

    const raised = await owner.call('POST', '/members/nina/role', { role: 'operator' });
    expect(raised.body).toMatchObject({ name: 'nina', role: 'operator' });
    // Her live session has the new role at once.
    expect((await nina.call('GET', '/session')).body.member.role).toBe('operator');
    expect((await nina.call('POST', '/agents', { name: 'nina-bot' })).status).toBe(200);
    expect(await lastAudit('member.role')).toMatchObject({
      actorName: `member ${PEOPLE.owner}`,
      subject: `${added.body.id}:operator`,
    });

    const removed = await owner.call('POST', '/members/nina/remove');
    expect(removed.status).toBe(200);
    expect((await nina.call('GET', '/session')).status).toBe(401);
    const names = (await owner.call('GET', '/members')).body.map((m: { name: string }) => m.name);
    expect(names).not.toContain('nina');
    expect(await lastAudit('member.remove')).toMatchObject({
      actorName: `member ${PEOPLE.owner}`,
      subject: added.body.id,
    });
  });

  it('keeps the last owner: neither demoted nor removed, until another member is owner', async () => {
    const owner = await as(PEOPLE.owner);
    const demoted = await owner.call('POST', `/members/${PEOPLE.owner}/role`, { role: 'viewer' });
    expect([demoted.status, demoted.body.error.code, demoted.body.error.field]).toEqual([
      409,
      'conflict',
      'role',
    ]);
    const removed = await owner.call('POST', `/members/${PEOPLE.owner}/remove`);
    expect([removed.status, removed.body.error.code, removed.body.error.field]).toEqual([
      409,
      'conflict',
      'name',
    ]);
    expect(removed.body.error.message).toContain('only owner');
    // With a second owner, the first may go; the second is removed again, leaving one.
    await owner.call('POST', '/members', { name: 'omar', password: PASSWORD, role: 'owner' });
    const omar = await as('omar');
    expect(
      (await omar.call('POST', `/members/${PEOPLE.owner}/role`, { role: 'owner' })).status,
    ).toBe(200);
    const gone = await owner.call('POST', '/members/omar/remove');
    expect(gone.status).toBe(200);
    expect((await owner.call('POST', `/members/${PEOPLE.owner}/remove`)).body.error.code).toBe(
      'conflict',
    );
  });

  it("never reaches another workspace's members, whatever the request names", async () => {
    const owner = await as(PEOPLE.owner);
    const role = await owner.call('POST', `/members/${PEOPLE.otherOwner}/role`, {
      role: 'viewer',
      workspace: OTHER.workspace,
    });
    expect([role.status, role.body.error.code]).toEqual([404, 'not_found']);
    const removed = await owner.call('POST', `/members/${PEOPLE.otherOwner}/remove`);
    expect([removed.status, removed.body.error.code]).toEqual([404, 'not_found']);
    const otto = await as(PEOPLE.otherOwner);
    const theirs = (await otto.call('GET', '/members')).body.map((m: { name: string }) => m.name);
    expect(theirs).toEqual([PEOPLE.otherOwner]);
  });
});

describe('OAuth clients and consents in the console', () => {
  /** A real sign-in through the gateway's authorization server: a registered client, the consent page, a code, tokens. */
  async function approvedClient() {
    const client = await registerClient(running.url);
    const { verifier, challenge } = pkce();
    const { location } = await consent(
      authorizeUrl(running.url, client, { code_challenge: challenge }),
      { member: PEOPLE.member, password: PASSWORD },
    );
    const code = location.searchParams.get('code');
    expect(code).toBeTruthy();
    const tokens = await exchange(running.url, client, { code: code!, verifier });
    expect(tokens.status).toBe(200);
    return { client, refresh: String(tokens.body.refresh_token) };
  }

  it('lists who approved which client with which scopes and when; an operator revokes it and its refresh token stops', async () => {
    const { client, refresh } = await approvedClient();
    const viewer = await as(PEOPLE.viewer);
    const listed = await viewer.call('GET', '/consents');
    expect(listed.status).toBe(200);
    const row = listed.body.find((c: { clientId: string }) => c.clientId === client.clientId);
    expect(row).toMatchObject({
      member: PEOPLE.member,
      clientName: 'raw test client',
      status: 'active',
    });
    expect(row.scopes.length).toBeGreaterThan(0);
    expect(Number.isNaN(Date.parse(row.createdAt))).toBe(false);

    const forged = await viewer.call('POST', `/consents/${row.id}/revoke`);
    expect([forged.status, forged.body.error.code]).toEqual([403, 'console_role_refused']);
    // Another workspace's owner cannot find it.
    const otto = await as(PEOPLE.otherOwner);
    const elsewhere = await otto.call('POST', `/consents/${row.id}/revoke`);
    expect([elsewhere.status, elsewhere.body.error.code, elsewhere.body.error.field]).toEqual([
      404,
      'not_found',
      'id',
    ]);
    expect((await otto.call('GET', '/consents')).body).toEqual([]);

    const operator = await as(PEOPLE.operator);
    const revoked = await operator.call('POST', `/consents/${row.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: row.id, status: 'revoked' });
    expect(await lastAudit('oauth.consent.revoke')).toMatchObject({
      actorName: `member ${PEOPLE.operator}`,
      subject: row.id,
      decision: 'allowed',
    });
    const refreshed = await tokenRequest(running.url, {
      grant_type: 'refresh_token',
      client_id: client.clientId,
      refresh_token: refresh,
    });
    expect([refreshed.status, refreshed.body.error]).toEqual([400, 'invalid_grant']);
    const after = (await viewer.call('GET', '/consents')).body.find(
      (c: { id: string }) => c.id === row.id,
    );
    expect(after.status).toBe('revoked');
  });
});

describe('grants and review in the console', () => {
  it('grants chosen actions with the personal credential; a viewer cannot, even forged', async () => {
    const operator = await as(PEOPLE.operator);
    const actions = await listActions(running.gateway.running.gateway.operator('cli'), {
      workspace: 'default',
      connection: CONNECTION,
    });
    const two = actions.slice(0, 2).map((a) => a.name);
    const body = {
      agent: 'deploy-bot',
      connection: CONNECTION,
      scope: 'actions',
      actions: two,
      credential: 'personal',
    };
    const forged = await (await as(PEOPLE.viewer)).call('POST', '/grants', body);
    expect(forged.body.error.code).toBe('console_role_refused');
    const none = await operator.call('POST', '/grants', { ...body, actions: [] });
    expect([none.status, none.body.error.code, none.body.error.field]).toEqual([
      400,
      'invalid_input',
      'actions',
    ]);
    const unknown = await operator.call('POST', '/grants', { ...body, actions: ['no_such'] });
    expect([unknown.body.error.code, unknown.body.error.field]).toEqual(['not_found', 'actions']);
    const given = await operator.call('POST', '/grants', body);
    expect(given.status).toBe(200);
    const listed = (await operator.call('GET', '/grants')).body.find(
      (g: { agent?: string }) => g.agent === 'deploy-bot',
    );
    expect(listed).toMatchObject({ scope: 'actions', credentialMode: 'personal' });
    expect(listed.actions).toEqual([...actions.slice(0, 2).map((a) => a.action)].sort());
    expect(await lastAudit('grant.create')).toMatchObject({
      actorName: `member ${PEOPLE.operator}`,
    });
    await operator.call('POST', '/grants/revoke', { agent: 'deploy-bot', connection: CONNECTION });
  });

  it('approves the queued actions of one class by name, and turns one action on and off on its own', async () => {
    const ctx = running.gateway.running.gateway.operator('cli');
    running.upstream.setDescription('A changed description, for the review queue');
    await refreshRemote(ctx, { workspace: 'default', connection: CONNECTION });
    const read = async () => listActions(ctx, { workspace: 'default', connection: CONNECTION });
    const waiting = (await read()).filter((a) => a.review === 'changed' || a.review === 'new');
    expect(waiting.length).toBeGreaterThan(0);
    const cls = waiting[0]!.classification;
    const ofClass = waiting.filter((a) => a.classification === cls).map((a) => a.name);
    const viewer = await as(PEOPLE.viewer);
    const path = `/connections/${CONNECTION}/actions`;
    expect((await viewer.call('POST', `${path}/review`, { actions: ofClass })).status).toBe(403);
    const operator = await as(PEOPLE.operator);
    const approved = await operator.call('POST', `${path}/review`, { actions: ofClass });
    expect(approved.status).toBe(200);
    const after = await read();
    for (const name of ofClass) expect(after.find((a) => a.name === name)?.review).toBe('reviewed');
    // Another class's changed actions still wait.
    for (const other of waiting.filter((a) => a.classification !== cls))
      expect(after.find((a) => a.name === other.name)?.review).toBe(other.review);

    const one = after.find((a) => a.state !== 'retired')!;
    const others = after.filter((a) => a.name !== one.name).map((a) => `${a.name}:${a.state}`);
    await operator.call('POST', `${path}/disable`, { actions: [one.name] });
    expect((await read()).find((a) => a.name === one.name)?.state).toBe('disabled');
    await operator.call('POST', `${path}/enable`, { actions: [one.name] });
    const last = await read();
    expect(last.find((a) => a.name === one.name)?.state).toBe('enabled');
    expect(last.filter((a) => a.name !== one.name).map((a) => `${a.name}:${a.state}`)).toEqual(
      others,
    );
    expect(await lastAudit('action.enable')).toMatchObject({
      actorName: `member ${PEOPLE.operator}`,
      subject: one.action,
    });
    // What the other tests start from: everything reviewed.
    await changeActions(ctx, 'review', { workspace: 'default', connection: CONNECTION, all: true });
  });
});

describe('the console session', () => {
  it('renews its cookie on every request, HttpOnly and SameSite=Strict, for the idle time', async () => {
    const client = consoleClient(running.url);
    const signedIn = await client.signIn(PEOPLE.viewer);
    const first = signedIn.headers.get('set-cookie')!;
    expect(first).toMatch(
      /^portcullis_console=[\w-]+; Path=\/console; Max-Age=1800; HttpOnly; SameSite=Strict$/,
    );
    for (const path of ['/session', '/members', '/consents']) {
      const again = (await client.call('GET', path)).headers.get('set-cookie')!;
      expect(again.split(';')[0]).toBe(first.split(';')[0]);
      expect(again).toMatch(/; Max-Age=1800; HttpOnly; SameSite=Strict$/);
    }
    // A request without a session renews nothing.
    const stranger = await consoleClient(running.url).call('GET', '/session');
    expect([stranger.status, stranger.headers.get('set-cookie')]).toEqual([401, null]);
  });
});
