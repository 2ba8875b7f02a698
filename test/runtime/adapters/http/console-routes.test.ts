/**
 * The console's API on a real gateway: who may sign in (a member without a
 * console role is sent to the consent pages), the session cookie's
 * attributes, what a viewer may read and the change they may not make even
 * by forging the request, the CSRF header and the Origin check on every
 * change, one workspace's people seeing nothing of another's, and every
 * change audited with the member as its actor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvent } from '../../../../runtime/core/governance/audit-event.ts';
import {
  CONNECTION,
  type ConsoleGateway,
  consoleClient,
  OTHER,
  PEOPLE,
  startConsoleGateway,
} from '../../../support/console.ts';

let running: ConsoleGateway;

beforeAll(async () => {
  running = await startConsoleGateway();
});
afterAll(async () => {
  await running?.close();
});

describe('/console/api', () => {
  it('signs an owner in with an HttpOnly, SameSite=Strict cookie on /console, and out again', async () => {
    const client = consoleClient(running.url);
    const signedIn = await client.signIn(PEOPLE.owner);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({
      member: { name: PEOPLE.owner, role: 'owner' },
      workspace: { name: 'default' },
    });
    expect(signedIn.body.csrf).toMatch(/^[\w-]{43}$/);
    const cookie = signedIn.headers.get('set-cookie')!;
    expect(cookie).toMatch(
      /^portcullis_console=[\w-]+; Path=\/console; Max-Age=1800; HttpOnly; SameSite=Strict$/,
    );
    expect((await client.call('GET', '/session')).status).toBe(200);
    expect((await client.call('POST', '/sign-out')).status).toBe(200);
    const after = await client.call('GET', '/session');
    expect([after.status, after.body.error.code]).toEqual([401, 'unauthenticated']);
  });

  it('refuses a wrong password with the consent page words, and a member without a console role', async () => {
    const wrong = await consoleClient(running.url).signIn(PEOPLE.owner, 'not the password at all');
    expect([wrong.status, wrong.body.error]).toEqual([
      401,
      {
        code: 'unauthenticated',
        message: 'The member name or the password is wrong.',
        field: 'password',
      },
    ]);
    const member = consoleClient(running.url);
    const refused = await member.signIn(PEOPLE.member);
    expect([refused.status, refused.body.error.code, refused.body.error.field]).toEqual([
      403,
      'console_role_refused',
      'role',
    ]);
    expect(refused.body.error.message).toContain('/oauth/consents');
    expect(refused.headers.get('set-cookie')).toBeNull();
  });

  it("lets a viewer read, and refuses the viewer's forged change on the server with its reason", async () => {
    const viewer = consoleClient(running.url);
    expect((await viewer.signIn(PEOPLE.viewer)).status).toBe(200);
    const connections = await viewer.call('GET', '/connections');
    expect(connections.status).toBe(200);
    const forged = await viewer.call('POST', '/agents', { name: 'sneaky-bot' });
    expect([forged.status, forged.body.error.code, forged.body.error.field]).toEqual([
      403,
      'console_role_refused',
      'role',
    ]);
    expect(forged.body.error.message).toContain(`portcullis member role ${PEOPLE.viewer} operator`);
    const review = await viewer.call('POST', `/connections/${CONNECTION}/actions/disable`, {
      all: true,
    });
    expect(review.body.error.code).toBe('console_role_refused');
    const grant = await viewer.call('POST', '/grants', {
      agent: 'deploy-bot',
      connection: CONNECTION,
      scope: 'all',
    });
    expect(grant.body.error.code).toBe('console_role_refused');
    const agents = await viewer.call('GET', '/agents');
    expect(agents.body.map((a: { name: string }) => a.name)).not.toContain('sneaky-bot');
    const grants = await viewer.call('GET', '/grants');
    expect(grants.body).toEqual([]);
    const refusals = await viewer.call('GET', '/audit?action=console.change');
    expect(refusals.body.events[0]).toMatchObject({
      actorName: `member ${PEOPLE.viewer}`,
      subject: 'POST /grants',
      decision: 'denied',
      reason: 'console_role_refused',
    });
  });

  it('answers one connection with its kind and, uncurated, the Unverified server label and host', async () => {
    const viewer = consoleClient(running.url);
    await viewer.signIn(PEOPLE.viewer);
    const one = await viewer.call('GET', `/connections/${CONNECTION}`);
    expect(one.status).toBe(200);
    const host = new URL(running.upstream.url).host;
    expect(one.body.kind).toBe('remote');
    expect(one.body.connection.name).toBe(CONNECTION);
    expect(one.body.connection.remote).toMatchObject({
      host,
      verified: false,
      label: `unverified server: ${host}`,
    });
    expect(one.body.connection.remote.curated).toBeUndefined();
    // The same record the list carries for it.
    const listed = await viewer.call('GET', '/connections');
    expect(
      listed.body.find((c: { connection: { name: string } }) => c.connection.name === CONNECTION),
    ).toEqual(one.body);
    const missing = await viewer.call('GET', '/connections/no-such-connection');
    expect([missing.status, missing.body.error.code, missing.body.error.field]).toEqual([
      404,
      'not_found',
      'connection',
    ]);
  });

  it('refuses a change without the CSRF header, or from another origin', async () => {
    const operator = consoleClient(running.url);
    expect((await operator.signIn(PEOPLE.operator)).status).toBe(200);
    const noToken = await operator.call('POST', '/agents', { name: 'no-token-bot' }, { csrf: 'x' });
    expect([noToken.status, noToken.body.error.code]).toEqual([403, 'console_csrf_refused']);
    const foreign = await operator.call(
      'POST',
      '/agents',
      { name: 'foreign-bot' },
      { origin: 'https://evil.example' },
    );
    expect([foreign.status, foreign.body.error.code, foreign.body.error.field]).toEqual([
      403,
      'console_csrf_refused',
      'Origin',
    ]);
    const fine = await operator.call(
      'POST',
      '/agents',
      { name: 'console-bot' },
      { origin: running.url },
    );
    expect(fine.status).toBe(200);
    expect(fine.body.key).toMatch(/^pck_/);
  });

  it('audits a change with the member as its actor, and finds it by its filters', async () => {
    const operator = consoleClient(running.url);
    await operator.signIn(PEOPLE.operator);
    const created = await operator.call('POST', '/agents', { name: 'audited-bot' });
    expect(created.status).toBe(200);
    const revoked = await operator.call('POST', '/agents/audited-bot/revoke');
    expect(revoked.body).toMatchObject({ status: 'revoked', changed: true });
    const page = await operator.call('GET', '/audit?action=agent.revoke&decision=allowed');
    expect(page.status).toBe(200);
    expect(page.body.events[0]).toMatchObject({
      action: 'agent.revoke',
      actorKind: 'member',
      actorName: `member ${PEOPLE.operator}`,
      subject: created.body.agent.id,
    });
    const byConnection = await operator.call('GET', `/audit?connection=${CONNECTION}`);
    expect(byConnection.body.events.length).toBeGreaterThan(0);
    for (const event of byConnection.body.events) expect(event.connectionId).not.toBeNull();
  });

  it('pages the audit log back by the last id of a page', async () => {
    const { store } = running.gateway.running.gateway;
    const workspace = await store.workspaces.byName('default');
    await store.audit.appendMany(
      Array.from({ length: 70 }, (_, i) =>
        auditEvent({
          at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
          actorKind: 'system',
          action: 'test.paging',
          decision: 'allowed',
          workspaceId: workspace!.id,
        }),
      ),
    );
    const owner = consoleClient(running.url);
    await owner.signIn(PEOPLE.owner);
    const first = await owner.call('GET', '/audit?action=test.paging');
    expect(first.body.events).toHaveLength(50);
    expect(first.body.nextBeforeId).toBe(first.body.events[49].id);
    const second = await owner.call(
      'GET',
      `/audit?action=test.paging&beforeId=${first.body.nextBeforeId}`,
    );
    expect(second.body.events).toHaveLength(20);
    expect(second.body.nextBeforeId).toBeNull();
    const ids = [...first.body.events, ...second.body.events].map((e: { id: number }) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(70);
  });

  it("shows a member their own workspace only: another's agents, connections and audit stay out of reach", async () => {
    const owner = consoleClient(running.url);
    await owner.signIn(PEOPLE.owner);
    const agents = await owner.call('GET', '/agents');
    expect(agents.body.map((a: { name: string }) => a.name)).not.toContain(OTHER.agent);
    const connections = await owner.call('GET', '/connections');
    expect(
      connections.body.map((c: { connection: { name: string } }) => c.connection.name),
    ).toEqual([CONNECTION]);
    // Naming the other workspace changes nothing: the session's workspace wins.
    const named = await owner.call('GET', `/agents?workspace=${OTHER.workspace}`);
    expect(named.body.map((a: { name: string }) => a.name)).not.toContain(OTHER.agent);
    const reach = await owner.call('GET', `/connections/${OTHER.connection}/actions`);
    expect([reach.status, reach.body.error.code]).toEqual([404, 'not_found']);
    const record = await owner.call('GET', `/connections/${OTHER.connection}`);
    expect([record.status, record.body.error.code]).toEqual([404, 'not_found']);
    const revoke = await owner.call('POST', `/agents/${OTHER.agent}/revoke`, {
      workspace: OTHER.workspace,
    });
    expect([revoke.status, revoke.body.error.code]).toEqual([404, 'not_found']);
    const audit = await owner.call('GET', '/audit');
    const other = consoleClient(running.url);
    await other.signIn(PEOPLE.otherOwner);
    const theirs = await other.call('GET', '/audit');
    const mine = new Set(audit.body.events.map((e: { id: number }) => e.id));
    for (const event of theirs.body.events) expect(mine.has(event.id)).toBe(false);
  });

  it('serves the page under a strict Content-Security-Policy that forbids framing', async () => {
    const response = await fetch(`${running.url}/console/`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await response.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/https?:\/\//);
  });
});
