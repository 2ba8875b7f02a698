/**
 * The first start's admin token makes the workspace's first owner over the
 * admin API, who then signs in to the console; roles change over the same
 * API, and a role the table does not know is refused naming the field.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PASSWORD } from '../../../support/console.ts';
import { builtConsole } from '../../../support/console-build.ts';
import { adminClient, startTestGateway, type TestGateway } from '../../../support/gateway.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ consoleAssets: await builtConsole() });
});
afterAll(async () => {
  await gateway?.close();
});

it('makes the first owner with the admin token, who signs in to the console', async () => {
  const admin = adminClient(gateway.url, gateway.adminToken!);
  const made = await admin('POST', '/workspaces/default/members', {
    name: 'lin',
    password: PASSWORD,
    role: 'owner',
  });
  expect([made.status, made.body.role]).toEqual([201, 'owner']);
  expect(made.text).not.toContain(PASSWORD);
  const typo = await admin('PUT', '/workspaces/default/members/lin/role', { role: 'admin' });
  expect([typo.status, typo.body.error.code, typo.body.error.field]).toEqual([
    400,
    'invalid_input',
    'role',
  ]);
  await admin('POST', '/workspaces/default/members', { name: 'ada', password: PASSWORD });
  const changed = await admin('PUT', '/workspaces/default/members/ada/role', { role: 'viewer' });
  expect([changed.status, changed.body.role]).toEqual([200, 'viewer']);
  const listed = await admin('GET', '/workspaces/default/members');
  expect(listed.body.map((m: { name: string; role: string }) => [m.name, m.role])).toEqual([
    ['ada', 'viewer'],
    ['lin', 'owner'],
  ]);

  const signedIn = await fetch(`${gateway.url}/console/api/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'lin', password: PASSWORD }),
  });
  expect(signedIn.status).toBe(200);
  expect(await signedIn.json()).toMatchObject({ member: { name: 'lin', role: 'owner' } });
});
