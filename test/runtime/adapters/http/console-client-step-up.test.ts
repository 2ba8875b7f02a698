/**
 * A client's step-up form in the console's API: every console role sees
 * each consent's form and why; only an owner chooses it (an operator is
 * refused `console_role_refused`, audited), only for a client the
 * workspace's members connected, only a form that is one; the choice is
 * audited as the owner (`oauth.client.step_up`).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type ConsoleGateway,
  consoleClient,
  PASSWORD,
  PEOPLE,
  startConsoleGateway,
} from '../../../support/console.ts';
import { consent } from '../../../support/oauth/consent-bot.ts';
import { authorizeUrl, pkce, registerClient } from '../../../support/oauth/raw-flow.ts';

let running: ConsoleGateway;

beforeAll(async () => {
  running = await startConsoleGateway();
});
afterAll(() => running?.close());

async function as(name: string) {
  const client = consoleClient(running.url);
  expect((await client.signIn(name)).status).toBe(200);
  return client;
}

it("lets only an owner choose a client's step-up form, and only for a client its members connected", async () => {
  const client = await registerClient(running.url);
  await consent(authorizeUrl(running.url, client, { code_challenge: pkce().challenge }), {
    member: PEOPLE.member,
    password: PASSWORD,
  });
  const path = `/clients/${encodeURIComponent(client.clientId)}/step-up`;
  const viewer = await as(PEOPLE.viewer);
  const row = (await viewer.call('GET', '/consents')).body.find(
    (c: { clientId: string }) => c.clientId === client.clientId,
  );
  expect(row.stepUp).toEqual({ form: 'http', why: 'default' });
  expect((await viewer.call('POST', path, { stepUp: 'result' })).status).toBe(403);
  const operator = await as(PEOPLE.operator);
  const refused = await operator.call('POST', path, { stepUp: 'result' });
  expect([refused.status, refused.body.error.code]).toEqual([403, 'console_role_refused']);
  const otto = await as(PEOPLE.otherOwner);
  const elsewhere = await otto.call('POST', path, { stepUp: 'result' });
  expect([elsewhere.status, elsewhere.body.error.code]).toEqual([404, 'not_found']);

  const owner = await as(PEOPLE.owner);
  const bad = await owner.call('POST', path, { stepUp: 'sometimes' });
  expect([bad.status, bad.body.error.code, bad.body.error.field]).toEqual([
    400,
    'invalid_input',
    'stepUp',
  ]);
  const chosen = await owner.call('POST', path, { stepUp: 'result' });
  expect(chosen.body).toMatchObject({ form: 'result', why: 'chosen' });
  const audited = (await owner.call('GET', '/audit?action=oauth.client.step_up')).body.events[0];
  expect(audited).toMatchObject({
    actorName: `member ${PEOPLE.owner}`,
    subject: `${client.clientId}:result`,
    decision: 'allowed',
  });
  const after = (await viewer.call('GET', '/consents')).body.find(
    (c: { clientId: string }) => c.clientId === client.clientId,
  );
  expect(after.stepUp).toEqual({ form: 'result', why: 'chosen' });
});
