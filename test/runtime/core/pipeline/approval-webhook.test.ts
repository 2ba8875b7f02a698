/**
 * The held call's webhook through the real guarded client to a real HTTP
 * receiver on loopback: signed as Standard Webhooks sign (the receiver
 * checks the HMAC-SHA256 over id, timestamp and body with the secret's
 * bytes), retried with backoff after a 5xx, never carrying the arguments;
 * refused to a loopback address where private networks are not allowed
 * (given up on, reported, nothing received).
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedClient } from '../../../../runtime/core/outbound/guarded-client.ts';
import { ApprovalWebhook } from '../../../../runtime/core/pipeline/approval-webhook.ts';
import { anApproval } from '../../../support/store-fixtures.ts';

const KEY = Buffer.from('a webhook secret of thirty-two b');
const SECRET = `whsec_${KEY.toString('base64')}`;

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let server: Server;
let url: URL;
const received: Received[] = [];
/** How many of the next requests are answered 503. */
let failNext = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = failNext-- > 0 ? 503 : 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/approvals`);
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const approval = anApproval({
  id: 'apr_webhook',
  argumentsHash: 'sha256:abc',
  arguments: '{"body":[{"name":"secret-volume"}]}',
  shownArguments: '{"body":[{"name":"secret-volume"}]}',
});

describe('the approval webhook', () => {
  it('is signed, retried with backoff after a failure, and names the call without its arguments', async () => {
    received.length = 0;
    failNext = 1;
    const reported: unknown[] = [];
    const webhook = new ApprovalWebhook({
      url,
      secret: SECRET,
      client: createGuardedClient({ allowPrivateNetworks: true }),
      report: (error) => reported.push(error),
      backoffMs: 10,
    });
    webhook.held(approval);
    await webhook.settled();
    expect(reported).toEqual([]);
    expect(received).toHaveLength(2);
    const [first, second] = received as [Received, Received];
    // A retry is the same message (its id), signed again.
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    const id = String(second.headers['webhook-id']);
    const timestamp = String(second.headers['webhook-timestamp']);
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(600);
    const expected = createHmac('sha256', KEY)
      .update(`${id}.${timestamp}.${second.body}`)
      .digest('base64');
    expect(second.headers['webhook-signature']).toBe(`v1,${expected}`);
    expect(JSON.parse(second.body)).toMatchObject({
      type: 'approval.held',
      data: { approval: 'apr_webhook', action: 'unikraft_delete_volumes' },
    });
    expect(second.body).not.toContain('secret-volume');
  });

  it('is refused to a loopback address unless private networks are allowed', async () => {
    received.length = 0;
    const reported: unknown[] = [];
    const webhook = new ApprovalWebhook({
      url,
      secret: SECRET,
      client: createGuardedClient({ allowPrivateNetworks: false }),
      report: (error) => reported.push(error),
      retries: 1,
      backoffMs: 1,
    });
    webhook.held(approval);
    await webhook.settled();
    expect(received).toHaveLength(0);
    expect(reported).toHaveLength(1);
    expect((reported[0] as { code?: string }).code).toBe('upstream_address_refused');
  });
});
