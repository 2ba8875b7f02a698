/**
 * The approval webhook end to end through the gateway: an agent's call to an
 * `ask` action over `/mcp` is held, and the gateway configured with
 * `PORTCULLIS_APPROVAL_WEBHOOK_URL` and `…_SECRET` POSTs its notice to a
 * receiver on loopback that checks it as a Standard Webhooks consumer would
 * (HMAC-SHA256 over id, timestamp and body, a timestamp within five minutes)
 * and answers the first try 500: the gateway tries again, the same
 * `webhook-id`, and the notice names the approval without its arguments.
 * Loopback is allowed by `PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS=1`, as other
 * tests allow it (a provider sent to a loopback upstream implies it); a
 * gateway with neither refuses the address (nothing received, the
 * operator's log says why). It opens the data folder a gateway with an
 * upstream set up (connection, agent, grant, `ask`) and closed: its held
 * call never goes upstream, so it needs none.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLog } from '../../../../runtime/compose/log.ts';
import { changeActions } from '../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import { grant } from '../../../../runtime/core/operator/grants.ts';
import {
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../support/gateway.ts';
import {
  type OAuthGateway,
  startOAuthGateway,
  WRITE_ARGS,
  WRITE_TOOL,
} from '../../../support/oauth/oauth-gateway.ts';
import { toolReasonOf } from '../../../support/reason.ts';

const KEY = Buffer.from('thirty-two bytes of webhook key!');
const SECRET = `whsec_${KEY.toString('base64')}`;

interface Delivery {
  id: string;
  verified: boolean;
  status: number;
  body: string;
}

let receiver: Server;
let hookUrl: string;
const deliveries: Delivery[] = [];

/** What a Standard Webhooks consumer checks: the signature over id.timestamp.body, a fresh timestamp. */
function verified(headers: Record<string, string | string[] | undefined>, body: string): boolean {
  const id = String(headers['webhook-id']);
  const timestamp = String(headers['webhook-timestamp']);
  const fresh = Math.abs(Number(timestamp) - Date.now() / 1000) <= 300;
  const expected = createHmac('sha256', KEY).update(`${id}.${timestamp}.${body}`).digest('base64');
  return fresh && String(headers['webhook-signature']).split(' ').includes(`v1,${expected}`);
}

let allowing: OAuthGateway;
let refusing: TestGateway;
let refusingKey: string;
const refusingLog: string[] = [];

async function askingAgent(gateway: TestGateway): Promise<string> {
  const ctx = gateway.running.gateway.operator('cli');
  const { key } = await createAgent(ctx, { workspace: 'default', name: 'hooked' });
  await grant(ctx, { workspace: 'default', agent: 'hooked', connection: 'unikraft', scope: 'all' });
  await changeActions(ctx, 'ask', {
    workspace: 'default',
    connection: 'unikraft',
    actions: [WRITE_TOOL],
  });
  return key;
}

async function held(gateway: { url: string }, key: string): Promise<string> {
  const client = await mcpClient(gateway.url, key);
  try {
    const reply = await callTool(client, WRITE_TOOL, WRITE_ARGS);
    expect(toolReasonOf(reply)).toBe('approval_pending');
    return reply.structuredContent?.error?.detail?.approval as string;
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const ok = verified(req.headers, body);
      // The first notice is answered 500: the gateway must try again.
      const status = !ok ? 401 : deliveries.length === 0 ? 500 : 204;
      deliveries.push({ id: String(req.headers['webhook-id']), verified: ok, status, body });
      res.statusCode = status;
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/approvals`;
  const webhook = {
    PORTCULLIS_APPROVAL_WAIT_MS: '0',
    PORTCULLIS_APPROVAL_WEBHOOK_URL: hookUrl,
    PORTCULLIS_APPROVAL_WEBHOOK_SECRET: SECRET,
  };
  const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-webhook-'));
  const setUp = await startOAuthGateway({ dataDir });
  [allowing, refusingKey] = await Promise.all([
    startOAuthGateway({
      environment: { ...webhook, PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' },
    }),
    askingAgent(setUp.gateway),
  ]);
  await setUp.close();
  refusing = await startTestGateway({
    dataDir,
    environment: webhook,
    log: createLog({ destination: { write: (line: string) => refusingLog.push(line) } }),
  });
});

afterAll(async () => {
  await Promise.all([allowing?.close(), refusing?.close()]);
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('the approval webhook through the gateway', { timeout: 60_000 }, () => {
  it('is signed, tried again after a 500 with the same id, and names the held call without its arguments', async () => {
    const id = await held(allowing, await askingAgent(allowing.gateway));
    // The receiver's answers decide: wait for the 2xx (the test's timeout bounds it).
    while (!deliveries.some((d) => d.status === 204))
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(deliveries.map((d) => [d.verified, d.status])).toEqual([
      [true, 500],
      [true, 204],
    ]);
    expect(deliveries[1]!.id).toBe(deliveries[0]!.id);
    const notice = JSON.parse(deliveries[1]!.body);
    expect(notice).toMatchObject({
      type: 'approval.held',
      data: { approval: id, action: WRITE_TOOL, classification: expect.any(String) },
    });
    expect(deliveries[1]!.body).not.toContain(WRITE_ARGS.body.name);
  });

  it('is refused to a loopback address where private networks are not allowed', async () => {
    const before = deliveries.length;
    await held(refusing, refusingKey);
    // Tried five times (1, 2, 4, 8 s apart), then given up on in the operator's log.
    while (!refusingLog.some((line) => line.includes('upstream_address_refused')))
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(deliveries).toHaveLength(before);
  });
});
