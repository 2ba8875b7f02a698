/**
 * A password change ends the member's other sessions at once, on every
 * replica: two gateways sharing one PostgreSQL schema and Redis, an owner
 * signed in to the console in two Chromium sessions (one on each replica),
 * `portcullis member password` run on the same store; each session's next
 * request, on either replica, is refused and sends its page back to the
 * sign-in (the agent it tried to create is not created), the old password
 * no longer signs in and the new one does. Sessions live in the shared
 * state, members in the store: no replica keeps anything of its own.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listAgents } from '../../../runtime/core/operator/agents.ts';
import { addMember } from '../../../runtime/core/operator/members.ts';
import { HAS_CHROMIUM, launchChromium } from '../../support/chromium.ts';
import { PASSWORD } from '../../support/console.ts';
import { builtConsole } from '../../support/console-build.ts';
import { signedInPage } from '../../support/console-sign-in.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { testSchemas } from '../../support/postgres.ts';
import { TEST_REDIS_URL } from '../../support/redis.ts';
import { runPortcullisHere } from '../../support/run-cli.ts';

const OWNER = `pia-${randomBytes(3).toString('hex')}`;
const NEW_PASSWORD = 'a brand new passphrase, long enough';
const schemas = testSchemas();
const masterKey = randomBytes(32).toString('base64url');
let databaseUrl: string;
let replicas: [TestGateway, TestGateway];
let browser: Browser;

beforeAll(async () => {
  databaseUrl = schemas.urlFor(await schemas.create());
  const consoleAssets = await builtConsole();
  const start = () =>
    startTestGateway({
      databaseUrl,
      masterKey,
      consoleAssets,
      environment: { REDIS_URL: TEST_REDIS_URL },
    });
  // The first migrates the store; the second opens it.
  const first = await start();
  replicas = [first, await start()];
  browser = await launchChromium();
  await addMember(first.running.gateway.operator('cli'), {
    workspace: 'default',
    name: OWNER,
    password: PASSWORD,
    role: 'owner',
  });
});
afterAll(async () => {
  await browser?.close();
  for (const replica of replicas ?? []) await replica.close();
  await schemas.dropAll();
});

/** What a session's cookie reads of the agents on a replica (the page's own cookie jar). */
async function agentsStatus(page: Page, replica: TestGateway): Promise<number> {
  return (await page.context().request.get(`${replica.url}/console/api/agents`)).status();
}

it.skipIf(!HAS_CHROMIUM)(
  "ends the member's sessions on every replica when their password changes",
  async () => {
    const [a, b] = replicas;
    const onA = await signedInPage(browser, a.url, OWNER, { fragment: '/agents' });
    const onB = await signedInPage(browser, b.url, OWNER, { fragment: '/agents' });
    // Either session reads on either replica: one shared session store.
    for (const page of [onA, onB])
      for (const replica of replicas) expect(await agentsStatus(page, replica)).toBe(200);

    const changed = await runPortcullisHere(
      ['member', 'password', OWNER, '--password-env', 'NEW_MEMBER_PASSWORD'],
      {
        DATABASE_URL: databaseUrl,
        PORTCULLIS_MASTER_KEY: masterKey,
        PORTCULLIS_DATA_DIR: mkdtempSync(join(tmpdir(), 'portcullis-password-cli-')),
        NEW_MEMBER_PASSWORD: NEW_PASSWORD,
      },
    );
    expect(changed.code, changed.stderr).toBe(0);

    for (const [page, agent] of [
      [onA, 'after-change-a'],
      [onB, 'after-change-b'],
    ] as const) {
      // A change tried with the old session: refused, and the page goes back to the sign-in.
      await page.getByLabel('Agent name').fill(agent);
      await page.getByRole('button', { name: 'Create agent' }).click();
      await page.getByLabel('Member name').waitFor();
      await expect(page.getByRole('alert').textContent()).resolves.toContain('Your session ended');
      for (const replica of replicas) expect(await agentsStatus(page, replica)).toBe(401);
    }
    const agents = await listAgents(a.running.gateway.operator('cli'), { workspace: 'default' });
    expect(agents.map((agent) => agent.name)).not.toContain('after-change-a');
    expect(agents.map((agent) => agent.name)).not.toContain('after-change-b');

    // The old password no longer signs in; the new one does, on either replica.
    const refused = await fetch(`${b.url}/console/api/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: OWNER, password: PASSWORD }),
    });
    expect(refused.status).toBe(401);
    const again = await signedInPage(browser, b.url, OWNER, { password: NEW_PASSWORD });
    expect(await agentsStatus(again, a)).toBe(200);
    for (const page of [onA, onB, again]) await page.context().close();
  },
);
