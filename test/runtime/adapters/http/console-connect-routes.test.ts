/**
 * The console's Connect your own MCP server routes on a real gateway, against
 * real servers on loopback (SDK-built MCP servers; one behind oidc-provider):
 * each branch of seed 000's table (nothing needed → review; a sign-in → its
 * host, then back to the console; a key or headers → a draft kept, then
 * carried on; an address refused → the problem and the field), paste a
 * config (read, then imported with write-only values), every value
 * write-only; a viewer's forged change refused on the server, a member of
 * another workspace seeing nothing, and every change audited as the member.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK_PATH } from '../../../../runtime/core/identity/oauth-client/upstream-oauth.ts';
import { listActions } from '../../../../runtime/core/operator/actions.ts';
import {
  CONNECTION,
  type ConsoleGateway,
  consoleClient,
  PEOPLE,
  startConsoleGateway,
} from '../../../support/console.ts';
import { startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { type OAuthUpstream, startOAuthUpstream } from '../../../support/remote/oauth-upstream.ts';
import {
  authorizeAt,
  continueLink,
  SignInBrowser,
} from '../../../support/remote/sign-in-browser.ts';
import { startUpstream, type Upstream } from '../../../support/remote/upstream-servers.ts';

const SECRET = 'header-value-never-shown-4711';
/** A `${VAR}` placeholder, as vendors' snippets write one. */
const PLACEHOLDER = ['$', '{API_KEY}'].join('');
let running: ConsoleGateway;
let open: Upstream;
let keyed: Upstream;
let oauth: OAuthUpstream;

beforeAll(async () => {
  [running, open, keyed, oauth] = await Promise.all([
    startConsoleGateway(),
    startUpstream('modern'),
    startUpstream('modern', { requireHeader: { name: 'X-Api-Key', value: SECRET } }),
    startOAuthUpstream({ tenant: 'console' }),
  ]);
});
afterAll(async () => {
  await Promise.all([running?.close(), open?.close(), keyed?.close(), oauth?.close()]);
});

async function owner() {
  const client = consoleClient(running.url);
  expect((await client.signIn(PEOPLE.owner)).status).toBe(200);
  return client;
}

/** The owner's audit events of an action, read through the console's own audit route. */
async function memberAudit(client: Awaited<ReturnType<typeof owner>>, action: string) {
  const page = await client.call('GET', `/audit?action=${action}`);
  return (
    page.body.events as Array<{ actorKind: string; actorName: string; subject: string }>
  ).filter((e) => e.actorKind === 'member' && e.actorName === `member ${PEOPLE.owner}`);
}

describe('/console/api/connect', () => {
  it('checks an address that needs nothing: its tools found, quarantined, under the Unverified server label', async () => {
    const client = await owner();
    const checked = await client.call('POST', '/connect/own', { url: open.url, name: 'open-one' });
    expect(checked.status).toBe(200);
    const host = new URL(open.url).host;
    expect(checked.body).toMatchObject({
      connection: 'open-one',
      next: 'review',
      status: 'active',
      host,
      verified: false,
      label: `unverified server: ${host}`,
      authKind: 'none',
    });
    expect(checked.body.found.tools.length).toBeGreaterThan(0);
    const step = await client.call('GET', '/connect/own/open-one');
    expect(step.body.next).toBe('review');
    expect(step.body.tools.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(checked.body.found.tools),
    );
    const ctx = running.gateway.running.gateway.operator('cli');
    const actions = await listActions(ctx, { workspace: 'default', connection: 'open-one' });
    expect(new Set(actions.map((a) => a.state))).toEqual(new Set(['quarantined']));
    expect((await memberAudit(client, 'connection.create')).map((e) => e.subject)).toContain(
      `remote-mcp ${host}`,
    );
  });

  it('keeps a draft for a server that wants headers, carries it on with them, and never answers a value back', async () => {
    const client = await owner();
    const first = await client.call('POST', '/connect/own', { url: keyed.url, name: 'keyed' });
    expect(first.body).toMatchObject({
      connection: 'keyed',
      next: 'credential',
      status: 'pending',
    });
    const listed = await client.call('GET', '/connections');
    const draft = listed.body.find(
      (s: { connection: { name: string } }) => s.connection.name === 'keyed',
    );
    expect(draft.connection.remote.draft).toBe('credential_needed');
    expect((await client.call('GET', '/connect/own/keyed')).body.next).toBe('credential');

    const wrong = await client.call('POST', '/connect/own', {
      url: keyed.url,
      name: 'keyed',
      headers: { 'X-Api-Key': 'not-it' },
    });
    expect([wrong.status, wrong.body.error.code, wrong.body.error.field]).toEqual([
      422,
      'remote_credential_refused',
      'credential',
    ]);
    const carried = await client.call('POST', '/connect/own', {
      url: keyed.url,
      name: 'keyed',
      headers: { 'X-Api-Key': SECRET },
    });
    expect(carried.body).toMatchObject({
      connection: 'keyed',
      next: 'review',
      status: 'active',
      authKind: 'headers',
      headerNames: ['X-Api-Key'],
    });
    expect(draft.connection.id).toBe(
      (await client.call('GET', '/connections')).body.find(
        (s: { connection: { name: string } }) => s.connection.name === 'keyed',
      ).connection.id,
    );
    for (const reply of [
      carried,
      await client.call('GET', '/connect/own/keyed'),
      await client.call('GET', '/connections'),
      await client.call('GET', '/audit'),
    ])
      expect(JSON.stringify(reply.body)).not.toContain(SECRET);
  });

  it('names the host a sign-in sends the operator to, and brings them back to the console afterwards', async () => {
    const client = await owner();
    const checked = await client.call('POST', '/connect/own', {
      url: oauth.mcp.url,
      name: 'signed',
    });
    const issuerHost = new URL(oauth.issuer).host;
    expect(checked.body).toMatchObject({
      next: 'sign_in',
      status: 'pending',
      authKind: 'oauth',
      signIn: { host: issuerHost, issuer: oauth.issuer },
    });
    const started = await client.call('POST', '/connect/own/signed/sign-in', {});
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ connection: 'signed', host: issuerHost });
    const browser = new SignInBrowser();
    const page = await browser.go(started.body.link);
    expect(page.html).toContain('Unverified server');
    const back = await authorizeAt(browser, continueLink(page));
    expect(back.startsWith(`${running.url}${CALLBACK_PATH}`)).toBe(true);
    const returned = await browser.request(back);
    expect([returned.status, returned.headers.get('location')]).toEqual([
      303,
      `${running.url}/console/#/connect/own/signed`,
    ]);
    const step = await client.call('GET', '/connect/own/signed');
    expect(step.body).toMatchObject({ next: 'review', status: 'active' });
    expect(step.body.tools.length).toBeGreaterThan(0);
    expect((await memberAudit(client, 'connection.sign_in')).length).toBeGreaterThan(0);
  });

  it('refuses an address the outbound guard will not call, naming the problem and the field', async () => {
    const client = await owner();
    for (const [url, code] of [
      ['http://0.0.0.0:9/mcp', 'remote_url_private'],
      ['ftp://mcp.example.com/mcp', 'remote_url_invalid'],
      ['https://user:pw@mcp.example.com/mcp', 'remote_url_invalid'],
    ] as const) {
      const refused = await client.call('POST', '/connect/own', { url });
      expect([refused.body.error.code, refused.body.error.field]).toEqual([code, 'url']);
    }
  });

  it('reads a pasted config for the header names it needs, then imports it with their values', async () => {
    const client = await owner();
    const config = JSON.stringify({
      mcpServers: {
        'pasted-keyed': { type: 'http', url: keyed.url, headers: { 'X-Api-Key': PLACEHOLDER } },
      },
    });
    const read = await client.call('POST', '/connect/config/read', { config });
    expect(read.body.servers).toEqual([
      {
        name: 'pasted-keyed',
        url: keyed.url,
        host: new URL(keyed.url).host,
        headers: [{ header: 'X-Api-Key', placeholder: PLACEHOLDER, given: false }],
      },
    ]);
    const missing = await client.call('POST', '/connect/config/import', { config, values: {} });
    expect([missing.body.error.code, missing.body.error.field]).toEqual([
      'invalid_input',
      'values.X-Api-Key',
    ]);
    const imported = await client.call('POST', '/connect/config/import', {
      config,
      server: 'pasted-keyed',
      values: { 'X-Api-Key': SECRET },
    });
    expect(imported.body).toMatchObject({
      connection: 'pasted-keyed',
      next: 'review',
      headerNames: ['X-Api-Key'],
    });
    expect(JSON.stringify(imported.body)).not.toContain(SECRET);
    const bad = await client.call('POST', '/connect/config/read', {
      config: '{"mcpServers": {"x": {"command": "npx"}}}',
    });
    expect([bad.body.error.code, bad.body.error.field]).toEqual([
      'remote_config_invalid',
      'mcpServers.x.command',
    ]);
    // A password pasted in an address is not answered back.
    const userinfo = new URL(keyed.url);
    userinfo.username = 'someone';
    userinfo.password = SECRET;
    const withPassword = await client.call('POST', '/connect/config/read', {
      config: JSON.stringify({ mcpServers: { x: { url: userinfo.href } } }),
    });
    expect(withPassword.body.servers[0].url).toBe(keyed.url);
    expect(JSON.stringify(withPassword.body)).not.toContain(SECRET);
    const help = await client.call('GET', '/connect/config/help');
    expect(help.body.prompt).toContain('mcpServers');
  });

  it("refuses a viewer's forged connect, import and sign-in on the server, audited as denied", async () => {
    const viewer = consoleClient(running.url);
    expect((await viewer.signIn(PEOPLE.viewer)).status).toBe(200);
    expect((await viewer.call('GET', `/connect/own/${CONNECTION}`)).status).toBe(200);
    for (const [path, body] of [
      ['/connect/own', { url: open.url, name: 'forged' }],
      ['/connect/config/import', { config: JSON.stringify({ url: open.url }) }],
      [`/connect/own/${CONNECTION}/sign-in`, {}],
    ] as const) {
      const forged = await viewer.call('POST', path, body);
      expect([forged.status, forged.body.error.code]).toEqual([403, 'console_role_refused']);
    }
    const ctx = running.gateway.running.gateway.operator('cli');
    expect(
      await ctx.store.connections.byName(
        (await ctx.store.workspaces.byName('default'))!.id,
        'forged',
      ),
    ).toBeUndefined();
    const denied = await ctx.store.audit.query({ action: 'console.change', limit: 20 });
    expect(denied.map((e) => e.subject)).toEqual(
      expect.arrayContaining(['POST /connect/own', 'POST /connect/config/import']),
    );
  });

  it('shows a member of another workspace nothing of this one', async () => {
    const client = await owner();
    await client.call('POST', '/connect/own', { url: keyed.url, name: 'mine-draft' });
    const other = consoleClient(running.url);
    expect((await other.signIn(PEOPLE.otherOwner)).status).toBe(200);
    for (const [method, path] of [
      ['GET', '/connect/own/mine-draft'],
      ['POST', '/connect/own/mine-draft/sign-in'],
    ] as const) {
      const reply = await other.call(method, path, method === 'POST' ? {} : undefined);
      expect([reply.status, reply.body.error.code]).toEqual([404, 'not_found']);
      expect(JSON.stringify(reply.body)).not.toContain(new URL(keyed.url).host);
    }
    const theirs = await other.call('GET', '/connections');
    expect(
      theirs.body.map((s: { connection: { name: string } }) => s.connection.name),
    ).not.toContain('mine-draft');
  });
});

describe('/console/api/connect under the production address policy', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('refuses the cloud metadata address and plain http, naming the url field', async () => {
    const ctx = gateway.running.gateway.operator('cli');
    const { addMember } = await import('../../../../runtime/core/operator/members.ts');
    await addMember(ctx, {
      workspace: 'default',
      name: PEOPLE.owner,
      password: 'correct horse battery staple',
      role: 'owner',
    });
    const client = consoleClient(gateway.url);
    expect((await client.signIn(PEOPLE.owner)).status).toBe(200);
    const metadata = await client.call('POST', '/connect/own', {
      url: 'https://169.254.169.254/mcp',
    });
    expect([metadata.status, metadata.body.error.code, metadata.body.error.field]).toEqual([
      422,
      'remote_url_private',
      'url',
    ]);
    const plain = await client.call('POST', '/connect/own', { url: 'http://mcp.example.com/mcp' });
    expect([plain.body.error.code, plain.body.error.field]).toEqual(['remote_url_invalid', 'url']);
  });
});
