/**
 * The limits on requests that are not governed calls, through a running
 * gateway configured with small figures: the admin API per admin token and
 * the token endpoint per client and address answer 429 with `Retry-After`
 * past their burst, and audit each refusal as `rate_limited`.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminClient, startTestGateway, type TestGateway } from '../../../support/gateway.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({
    environment: {
      PORTCULLIS_RATE_LIMIT_ADMIN_PER_MINUTE: '1',
      PORTCULLIS_RATE_LIMIT_ADMIN_BURST: '2',
      PORTCULLIS_RATE_LIMIT_CLIENT_PER_MINUTE: '1',
    },
  });
});

afterAll(async () => {
  await gateway?.close();
});

const auditOf = (action: string) =>
  gateway.running.gateway.store.audit.query({ action, reason: 'rate_limited' });

it('answers the admin API 429 with Retry-After past the burst of an admin token, and audits it', async () => {
  const admin = adminClient(gateway.url, gateway.adminToken!);
  const statuses = [];
  for (let i = 0; i < 2; i++) statuses.push((await admin('GET', '/workspaces')).status);
  expect(statuses).toEqual([200, 200]);
  const response = await fetch(`${gateway.url}/admin/v1/workspaces`, {
    headers: { authorization: `Bearer ${gateway.adminToken}` },
  });
  expect(response.status).toBe(429);
  const wait = Number(response.headers.get('retry-after'));
  expect(wait).toBeGreaterThanOrEqual(1);
  expect(wait).toBeLessThanOrEqual(60);
  const body = (await response.json()) as { error: { code: string; detail: unknown } };
  expect(body.error.code).toBe('rate_limited');
  expect(body.error.detail).toMatchObject({ perMinute: 1, burst: 2, retryAfterSeconds: wait });
  const events = await auditOf('admin.request');
  expect(events).toHaveLength(1);
  expect(events[0]).toMatchObject({ decision: 'denied', subject: 'GET /admin/v1/workspaces' });
});

it("answers the token endpoint 429 with Retry-After past a client's burst, and audits it", async () => {
  const clientId = `https://client-${randomBytes(3).toString('hex')}.example.test/app`;
  const request = () =>
    fetch(`${gateway.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: clientId,
        refresh_token: 'not-a-token',
      }),
    });
  const first = await request();
  expect(first.status).toBe(400);
  const second = await request();
  expect(second.status).toBe(429);
  expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(((await second.json()) as { error: string }).error).toBe('temporarily_unavailable');
  const events = await auditOf('oauth.token');
  expect(events).toHaveLength(1);
  expect(events[0]).toMatchObject({ decision: 'denied', subject: 'temporarily_unavailable' });
});
