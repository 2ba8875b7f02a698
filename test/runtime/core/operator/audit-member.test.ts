/**
 * The audit log filtered by member, the same through the console's API and
 * `portcullis audit --member`: the member's own events, their agents'
 * (each acts for them) and every call whose delegation chain names them,
 * never another member's (nor a chain whose member id only begins with
 * theirs); each delegated call carries the chain by name (`onBehalfOf`).
 * An unknown member is `not_found` on the `member` field.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { auditEvent } from '../../../../runtime/core/governance/audit-event.ts';
import {
  type ConsoleGateway,
  consoleClient,
  PEOPLE,
  startConsoleGateway,
} from '../../../support/console.ts';
import { runPortcullisHere } from '../../../support/run-cli.ts';

const CLIENT = 'https://app.example/client.json';
let running: ConsoleGateway;
/** The subjects of the events that name mia, and of those that must not come with them. */
const HERS = ['own-sign-in', 'her-agent-call', 'delegated-call'];
const NOT_HERS = ['oscar-sign-in', 'look-alike-chain'];

beforeAll(async () => {
  running = await startConsoleGateway();
  const { store } = running.gateway.running.gateway;
  const workspaceId = (await store.workspaces.byName('default'))!.id;
  const mia = (await store.oauth.members.byName(PEOPLE.member))!;
  const oscar = (await store.oauth.members.byName(PEOPLE.operator))!;
  const agents = await store.agents.list(workspaceId);
  const bot = agents.find((a) => a.name === 'deploy-bot')!;
  // An agent her consent made: its calls act for her.
  const hers = { ...bot, id: `${bot.id}-mia`, name: 'mia-in-app', memberId: mia.id };
  await store.agents.create(hers, 'x'.repeat(64));
  const at = new Date().toISOString();
  const base = { at, workspaceId, decision: 'allowed' as const };
  const events = [
    {
      ...base,
      actorKind: 'member',
      actorId: mia.id,
      action: 'oauth.sign_in',
      subject: 'own-sign-in',
    },
    {
      ...base,
      actorKind: 'agent',
      actorId: hers.id,
      action: 'weather__get',
      subject: 'her-agent-call',
    },
    {
      ...base,
      actorKind: 'agent',
      actorId: bot.id,
      action: 'weather__get',
      subject: 'delegated-call',
      outcome: 'ok',
      delegation: `member:${mia.id} agent:${bot.id} client:${CLIENT}`,
    },
    {
      ...base,
      actorKind: 'member',
      actorId: oscar.id,
      action: 'oauth.sign_in',
      subject: 'oscar-sign-in',
    },
    {
      ...base,
      actorKind: 'agent',
      actorId: bot.id,
      action: 'weather__get',
      subject: 'look-alike-chain',
      delegation: `member:${mia.id}x agent:${bot.id} client:${CLIENT}`,
    },
  ] as const;
  for (const event of events) await store.audit.append(auditEvent(event));
});
afterAll(() => running?.close());

it("finds a member's events, their agents' and those on their behalf in the console's API", async () => {
  const owner = consoleClient(running.url);
  expect((await owner.signIn(PEOPLE.owner)).status).toBe(200);
  const page = await owner.call('GET', `/audit?member=${PEOPLE.member}`);
  expect(page.status).toBe(200);
  const subjects = page.body.events.map((e: { subject: string }) => e.subject);
  expect(subjects).toEqual(expect.arrayContaining(HERS));
  for (const other of NOT_HERS) expect(subjects).not.toContain(other);
  const delegated = page.body.events.find(
    (e: { subject: string }) => e.subject === 'delegated-call',
  );
  expect(delegated.onBehalfOf).toEqual({
    member: PEOPLE.member,
    agent: 'deploy-bot',
    client: CLIENT,
  });
  const own = page.body.events.find((e: { subject: string }) => e.subject === 'own-sign-in');
  expect(own.onBehalfOf).toBeUndefined();

  const unknown = await owner.call('GET', '/audit?member=nobody-here');
  expect([unknown.status, unknown.body.error.code, unknown.body.error.field]).toEqual([
    404,
    'not_found',
    'member',
  ]);
  // Another workspace's owner never sees her, even by name.
  const otto = consoleClient(running.url);
  expect((await otto.signIn(PEOPLE.otherOwner)).status).toBe(200);
  expect((await otto.call('GET', `/audit?member=${PEOPLE.member}`)).status).toBe(404);
});

it('finds the same with portcullis audit --member, in JSON lines and in its table', async () => {
  const env = { PORTCULLIS_DATA_DIR: running.gateway.dataDir };
  const json = await runPortcullisHere(['audit', '--member', PEOPLE.member, '--json'], env);
  expect(json.code, json.stderr).toBe(0);
  const lines = json.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { subject: string; onBehalfOf?: unknown });
  const subjects = lines.map((e) => e.subject);
  expect(subjects).toEqual(expect.arrayContaining(HERS));
  for (const other of NOT_HERS) expect(subjects).not.toContain(other);
  expect(lines.find((e) => e.subject === 'delegated-call')?.onBehalfOf).toMatchObject({
    member: PEOPLE.member,
  });

  const table = await runPortcullisHere(['audit', '--member', PEOPLE.member], env);
  expect(table.code, table.stderr).toBe(0);
  const [head, ...rows] = table.stdout.split('\n');
  expect(head).toMatch(/\bFOR$/);
  const delegatedRow = rows.find((row) => row.includes('deploy-bot'));
  expect(delegatedRow).toMatch(new RegExp(`\\b${PEOPLE.member}\\s*$`));

  const unknown = await runPortcullisHere(['audit', '--member', 'nobody-here'], env);
  expect(unknown.code).not.toBe(0);
  expect(unknown.stderr).toContain('not_found');
});
