import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGuardedClient,
  type GuardedClient,
} from '../../runtime/core/outbound/guarded-client.ts';
import { Redactor } from '../../runtime/core/outbound/redaction.ts';
import { buildRestRequest } from '../../runtime/core/sources/native-rest/build-request.ts';
import { type PrismServer, startPrism } from './prism.ts';
import { realAction } from './rest-actions.ts';

const TOKEN = 'test-token-for-prism';
const COMMAND = '123e4567-e89b-12d3-a456-426614174000';

let client: GuardedClient;
beforeAll(() => {
  client = createGuardedClient({ allowPrivateNetworks: true });
});
afterAll(() => client.close());

/** Sends a built request to Prism instead of the provider; `strip` drops the server's base path. */
function viaPrism(prism: PrismServer, strip = '') {
  return (url: URL) => new URL(`${url.pathname.slice(strip.length)}${url.search}`, `${prism.url}/`);
}

describe('Prism: Unikraft platform', () => {
  let prism: PrismServer;
  beforeAll(async () => {
    prism = await startPrism('unikraft', 'platform');
  });
  afterAll(() => prism?.stop());

  it('answers GetUser with its example when the bearer token is sent', async () => {
    const built = buildRestRequest(
      realAction('unikraft', 'unikraft_get_user'),
      {},
      {
        settings: { metro: 'fra' },
        hostOverride: viaPrism(prism),
      },
    );
    const reply = await client.send({
      method: built.method,
      url: built.url,
      headers: { ...built.headers, authorization: `Bearer ${TOKEN}` },
      redactor: new Redactor([TOKEN]),
    });
    expect(reply.status).toBe(200);
    const body = JSON.parse(reply.body.toString('utf8')) as { data?: { quotas?: unknown[] } };
    expect(Array.isArray(body.data?.quotas)).toBe(true);
  });

  it('refuses GetUser without the token (Prism checks the security scheme)', async () => {
    const built = buildRestRequest(
      realAction('unikraft', 'unikraft_get_user'),
      {},
      {
        settings: {},
        hostOverride: viaPrism(prism),
      },
    );
    const reply = await client.send({
      method: built.method,
      url: built.url,
      headers: built.headers,
    });
    expect(reply.status).toBe(401);
  });
});

describe('Prism: Unikraft sandbox plugin', () => {
  let prism: PrismServer;
  beforeAll(async () => {
    prism = await startPrism('unikraft', 'sandbox');
  });
  afterAll(() => prism?.stop());

  it('answers GetCommandLogs (a GET with a JSON body) on the plugin route', async () => {
    const action = realAction('unikraft', 'unikraft_sandbox_get_command_logs');
    const built = buildRestRequest(
      action,
      {
        server: { instance: 'my-app' },
        path: { uuid: COMMAND },
        body: { stdout: { offset: 0 }, stderr: { offset: 0 } },
      },
      { settings: {}, hostOverride: viaPrism(prism, '/v1/instances/my-app/plugins/sandbox') },
    );
    expect(built.url.pathname).toBe(`/commands/${COMMAND}/logs`);
    const reply = await client.send({
      method: built.method,
      url: built.url,
      headers: { ...built.headers, authorization: `Bearer ${TOKEN}` },
      ...(built.body === undefined ? {} : { body: built.body }),
    });
    expect(reply.status).toBeGreaterThanOrEqual(200);
    expect(reply.status).toBeLessThan(300);
    expect(reply.headers['content-type']).toMatch(/json/);
  });
});
