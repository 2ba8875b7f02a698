/**
 * The console's gallery routes on a real gateway, with Unikraft's calls sent
 * to Prism on its pinned platform document (through a forwarder that records
 * which credential arrived): the gallery lists the compiled providers and the
 * curated remote servers with what their forms ask for; an operator connects
 * Unikraft with a key and another default metro, with the `connect` verb
 * (the key tried upstream, then sealed, never answered back) and is audited
 * as the member; a viewer's forged connect is refused on the server; bad
 * input names the field to change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsoleGateway,
  consoleClient,
  PEOPLE,
  startConsoleGateway,
} from '../../../support/console.ts';
import { type PrismServer, startPrism } from '../../../support/prism.ts';
import { type RecordingProxy, startRecordingProxy } from '../../../support/recording-proxy.ts';

const KEY = 'ukc-gallery-route-key-7f3a';

let prism: PrismServer;
let proxy: RecordingProxy;
let running: ConsoleGateway;

beforeAll(async () => {
  prism = await startPrism('unikraft', 'platform');
  proxy = await startRecordingProxy(prism.url);
  running = await startConsoleGateway({ upstreams: { unikraft: proxy.url } });
}, 120_000);
afterAll(async () => {
  await running?.close();
  await proxy?.close();
  await prism?.stop();
});

async function as(person: string) {
  const client = consoleClient(running.url);
  expect((await client.signIn(person)).status).toBe(200);
  return client;
}

describe('/console/api/gallery', () => {
  it('lists the providers and curated servers with their fields, guidance, settings and counts', async () => {
    const viewer = await as(PEOPLE.viewer);
    const gallery = await viewer.call('GET', '/gallery');
    expect(gallery.status).toBe(200);
    const byId = Object.fromEntries(gallery.body.map((app: { id: string }) => [app.id, app]));
    expect(Object.keys(byId).sort()).toEqual([
      'coolify',
      'daytona',
      'github',
      'linear',
      'sentry',
      'unikraft',
    ]);
    expect(byId.unikraft).toMatchObject({
      name: 'Unikraft Cloud',
      kind: 'native',
      counts: { read: 34, write: 31, destructive: 25 },
      fields: [{ name: 'token', label: 'Unikraft Cloud API token', secret: true }],
      settings: [
        {
          name: 'metro',
          kind: 'choice',
          enum: ['fra', 'dal', 'sin', 'was', 'sfo'],
          default: 'fra',
        },
      ],
      defaultName: 'unikraft',
    });
    for (const id of ['unikraft', 'daytona', 'coolify'])
      expect(byId[id].fields[0].obtain.text.length).toBeGreaterThan(20);
    // Coolify's host is the base URL its calls go to.
    expect(byId.coolify.settings).toEqual([
      expect.objectContaining({ name: 'host', kind: 'host', default: 'app.coolify.io' }),
    ]);
    expect(byId.github).toMatchObject({
      kind: 'curated',
      remote: { url: 'https://api.githubcopilot.com/mcp', signIn: true },
      fields: [{ name: 'token', secret: true, obtain: { url: expect.stringMatching(/^https:/) } }],
    });
    expect(byId.github.counts).toBeUndefined();
    expect(byId.linear.fields).toEqual([]);
  });

  it('connects Unikraft with a key and another metro, tried upstream and sealed, audited as the member', async () => {
    const operator = await as(PEOPLE.operator);
    const before = proxy.seen.length;
    const connected = await operator.call('POST', '/gallery/unikraft/connect', {
      name: 'ukc',
      settings: { metro: 'dal' },
      credential: { token: KEY },
    });
    expect([connected.status, connected.body]).toEqual([
      200,
      { connection: 'ukc', kind: 'native', next: 'review' },
    ]);
    // The verify read went upstream with the key.
    expect(proxy.seen.slice(before)).toContainEqual(
      expect.objectContaining({ method: 'GET', authorization: `Bearer ${KEY}` }),
    );
    const connections = await operator.call('GET', '/connections');
    const mine = connections.body.find(
      (c: { connection: { name: string } }) => c.connection.name === 'ukc',
    );
    expect(mine).toMatchObject({
      kind: 'native',
      connection: { provider: 'unikraft', settings: { metro: 'dal' } },
    });
    const gallery = await operator.call('GET', '/gallery');
    expect(gallery.body.find((a: { id: string }) => a.id === 'unikraft').connected).toEqual([
      'ukc',
    ]);
    // Write-only: no reply carries the key.
    for (const reply of [connected, connections, gallery])
      expect(JSON.stringify(reply.body)).not.toContain(KEY);
    const audit = await operator.call('GET', '/audit?action=connection.create&decision=allowed');
    expect(audit.body.events[0]).toMatchObject({
      actorKind: 'member',
      actorName: `member ${PEOPLE.operator}`,
      subject: 'unikraft',
      outcome: 'ok',
    });
  });

  it("refuses a viewer's forged connect on the server, and audits the refusal", async () => {
    const viewer = await as(PEOPLE.viewer);
    const forged = await viewer.call('POST', '/gallery/unikraft/connect', {
      name: 'forged',
      credential: { token: KEY },
    });
    expect([forged.status, forged.body.error.code, forged.body.error.field]).toEqual([
      403,
      'console_role_refused',
      'role',
    ]);
    const connections = await viewer.call('GET', '/connections');
    expect(
      connections.body.map((c: { connection: { name: string } }) => c.connection.name),
    ).not.toContain('forged');
    const refusals = await viewer.call('GET', '/audit?action=console.change');
    expect(refusals.body.events[0]).toMatchObject({
      actorName: `member ${PEOPLE.viewer}`,
      subject: 'POST /gallery/unikraft/connect',
      decision: 'denied',
      reason: 'console_role_refused',
    });
  });

  it.each([
    [
      'a metro Unikraft does not publish',
      { app: 'unikraft', body: { settings: { metro: 'mars' }, credential: { token: KEY } } },
      { status: 400, code: 'invalid_input', field: 'settings.metro' },
    ],
    [
      'an empty key',
      { app: 'unikraft', body: { name: 'empty-key', credential: { token: '' } } },
      { status: 400, code: 'invalid_input', field: 'credential.token' },
    ],
    [
      'a name that is not a connection name',
      { app: 'unikraft', body: { name: 'Not A Name', credential: { token: KEY } } },
      { status: 400, code: 'invalid_input', field: 'name' },
    ],
    [
      'an app the gallery does not have',
      { app: 'unikraf', body: { credential: { token: KEY } } },
      { status: 404, code: 'not_found', field: 'app' },
    ],
    [
      "a curated server's key with a line break",
      { app: 'github', body: { credential: { token: 'ghp_one\r\nX-Other: two' } } },
      { status: 400, code: 'header_refused', field: 'credential.token' },
    ],
    [
      'a setting a curated server does not have',
      { app: 'github', body: { settings: { metro: 'dal' } } },
      { status: 400, code: 'invalid_input', field: 'settings.metro' },
    ],
  ])('answers %s with the reason code and the field to change', async (_name, given, want) => {
    const operator = await as(PEOPLE.operator);
    const reply = await operator.call('POST', `/gallery/${given.app}/connect`, given.body);
    expect([reply.status, reply.body.error.code, reply.body.error.field]).toEqual([
      want.status,
      want.code,
      want.field,
    ]);
    expect(JSON.stringify(reply.body)).not.toContain(KEY);
  });
});
