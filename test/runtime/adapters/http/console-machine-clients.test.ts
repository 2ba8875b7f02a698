/**
 * Machine clients in the console's API: every console role lists them (how
 * each authenticates, its JWKS URL, its agent and grants) and nothing of a
 * secret in any encoding (the secret, its sha256, its base64); a member
 * without a console role gets nothing, a viewer's removal is refused and
 * audited; an operator removes one: audited as the operator, gone from the
 * list with its agent, and its access token refused at its next request.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { grant } from '../../../../runtime/core/operator/grants.ts';
import { addMachineClient } from '../../../../runtime/core/operator/machine-clients.ts';
import { setMemberRole } from '../../../../runtime/core/operator/members.ts';
import {
  CONNECTION,
  type ConsoleGateway,
  consoleClient,
  PEOPLE,
  startConsoleGateway,
} from '../../../support/console.ts';
import { basic, sdkClient } from '../../../support/oauth/machine-client.ts';
import { tokenRequest } from '../../../support/oauth/raw-flow.ts';

const JWKS = 'https://ci.example/jwks.json';
let running: ConsoleGateway;
let secretClient: { id: string; secret: string };
let keyClient: string;

beforeAll(async () => {
  running = await startConsoleGateway();
  const ctx = running.gateway.running.gateway.operator('cli');
  const workspace = 'default';
  const added = await addMachineClient(ctx, { workspace, name: 'nightly' });
  secretClient = { id: added.client.id, secret: added.secret ?? '' };
  keyClient = (await addMachineClient(ctx, { workspace, name: 'deployer', jwksUri: JWKS })).client
    .id;
  await grant(ctx, { workspace, agent: 'nightly', connection: CONNECTION, scope: 'reads' });
});
afterAll(() => running?.close());

async function as(name: string) {
  const client = consoleClient(running.url);
  expect((await client.signIn(name)).status).toBe(200);
  return client;
}

it('lists machine clients to every console role with no secret in any encoding', async () => {
  const { secret } = secretClient;
  expect(secret).toMatch(/^pcs_/);
  for (const name of [PEOPLE.viewer, PEOPLE.operator, PEOPLE.owner]) {
    const listed = await (await as(name)).call('GET', '/machine-clients');
    expect(listed.status).toBe(200);
    // Another test adds and removes one of its own.
    const ours = listed.body.filter((c: { id: string }) =>
      [keyClient, secretClient.id].includes(c.id),
    );
    expect(ours).toEqual([
      expect.objectContaining({
        id: keyClient,
        name: 'deployer',
        auth: 'private_key_jwt',
        jwksUri: JWKS,
        agent: 'deployer',
        grants: [],
      }),
      expect.objectContaining({
        id: secretClient.id,
        name: 'nightly',
        auth: 'client_secret_basic',
        jwksUri: null,
        agent: 'nightly',
        grants: [{ connection: CONNECTION, scope: 'reads', actions: [] }],
      }),
    ]);
    const text = JSON.stringify(listed.body);
    for (const encoding of [
      secret,
      secret.slice(4),
      createHash('sha256').update(secret).digest('hex'),
      createHash('sha256').update(secret).digest('base64'),
      Buffer.from(secret).toString('base64'),
      encodeURIComponent(secret),
    ])
      expect(text).not.toContain(encoding);
    expect(text).not.toMatch(/secret_?hash/i);
  }
});

it('refuses a member without a console role, and a viewer who would remove one', async () => {
  const member = await consoleClient(running.url).signIn(PEOPLE.member);
  expect([member.status, member.body.error.code]).toEqual([403, 'console_role_refused']);
  const nobody = await consoleClient(running.url).call('GET', '/machine-clients');
  expect([nobody.status, nobody.body.error.code]).toEqual([401, 'unauthenticated']);

  // A viewer made a plain member keeps no reach through the session already open.
  const ctx = running.gateway.running.gateway.operator('cli');
  const demoted = await as(PEOPLE.viewer);
  await setMemberRole(ctx, { workspace: 'default', name: PEOPLE.viewer, role: 'member' });
  try {
    const refused = await demoted.call('GET', '/machine-clients');
    expect(refused.status).toBeGreaterThanOrEqual(401);
    expect(refused.status).toBeLessThanOrEqual(403);
    expect(JSON.stringify(refused.body)).not.toContain(secretClient.id);
  } finally {
    await setMemberRole(ctx, { workspace: 'default', name: PEOPLE.viewer, role: 'viewer' });
  }

  const viewer = await as(PEOPLE.viewer);
  const removal = await viewer.call(
    'POST',
    `/machine-clients/${encodeURIComponent(keyClient)}/remove`,
  );
  expect([removal.status, removal.body.error.code]).toEqual([403, 'console_role_refused']);
  const owner = await as(PEOPLE.owner);
  const denied = (await owner.call('GET', '/audit?action=console.change')).body.events[0];
  expect(denied).toMatchObject({ decision: 'denied', reason: 'console_role_refused' });
  const still = (await owner.call('GET', '/machine-clients')).body.map((c: { id: string }) => c.id);
  expect(still).toContain(keyClient);
});

it("removes a machine client with its agent for an operator, and refuses its token's next request", async () => {
  const ctx = running.gateway.running.gateway.operator('cli');
  const added = await addMachineClient(ctx, { workspace: 'default', name: 'cron-job' });
  const doomed = { id: added.client.id, secret: added.secret ?? '' };
  await grant(ctx, {
    workspace: 'default',
    agent: 'cron-job',
    connection: CONNECTION,
    scope: 'reads',
  });
  const issued = await tokenRequest(
    running.url,
    { grant_type: 'client_credentials', scope: 'tools:read' },
    basic(doomed.id, doomed.secret),
  );
  expect(issued.status, JSON.stringify(issued.body)).toBe(200);
  const token = String(issued.body.access_token);
  const before = await sdkClient(running.url, token);
  await before.listTools();
  await before.close();

  const operator = await as(PEOPLE.operator);
  const other = await consoleClient(running.url);
  const elsewhere = await other.signIn(PEOPLE.otherOwner);
  expect(elsewhere.status).toBe(200);
  const notTheirs = await other.call(
    'POST',
    `/machine-clients/${encodeURIComponent(doomed.id)}/remove`,
  );
  expect([notTheirs.status, notTheirs.body.error.code]).toEqual([404, 'not_found']);

  const removed = await operator.call(
    'POST',
    `/machine-clients/${encodeURIComponent(doomed.id)}/remove`,
  );
  expect(removed.status, JSON.stringify(removed.body)).toBe(200);
  expect(removed.body).toMatchObject({ id: doomed.id, name: 'cron-job' });
  expect(JSON.stringify(removed.body)).not.toContain(doomed.secret);
  const listed = (await operator.call('GET', '/machine-clients')).body;
  expect(listed.map((c: { id: string }) => c.id)).not.toContain(doomed.id);
  const agents = (await operator.call('GET', '/agents')).body.map((a: { name: string }) => a.name);
  expect(agents).not.toContain('cron-job');
  const audited = (await operator.call('GET', '/audit?action=oauth.client.remove')).body.events[0];
  expect(audited).toMatchObject({
    actorName: `member ${PEOPLE.operator}`,
    subject: `${doomed.id}:client_secret_basic`,
    decision: 'allowed',
  });

  await expect(sdkClient(running.url, token)).rejects.toThrow();
  const again = await tokenRequest(
    running.url,
    { grant_type: 'client_credentials' },
    basic(doomed.id, doomed.secret),
  );
  expect([again.status, again.body.error]).toEqual([401, 'invalid_client']);
});
