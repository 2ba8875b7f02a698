/**
 * Rate limits through a running gateway, an SDK MCP client calling against
 * Prism: a limit the `portcullis limits` command sets holds from the next
 * call (the n+1th is refused `rate_limited`, told the wait, audited once as
 * denied), a call the policy refuses takes no token, a connection's limit
 * counts every agent together, and clearing a limit lifts it. Every test
 * uses agents of its own; the one connection limit is cleared after its test.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
  type ToolReply,
} from '../../../support/gateway.ts';
import { type PrismServer, startPrism } from '../../../support/prism.ts';
import { runPortcullisHere } from '../../../support/run-cli.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-limits-'));
const env = { PORTCULLIS_DATA_DIR: dataDir };
const READ = 'unikraft_get_user';
let prism: PrismServer;
let gateway: TestGateway;
let admin: ReturnType<typeof adminClient>;
let agents = 0;

beforeAll(async () => {
  prism = await startPrism('unikraft', 'platform');
  gateway = await startTestGateway({ dataDir, upstreams: { unikraft: prism.url } });
  admin = adminClient(gateway.url, gateway.adminToken!);
  await admin('POST', '/workspaces/default/connections', {
    provider: 'unikraft',
    credential: 'token',
  });
});

afterAll(async () => {
  await gateway?.close();
  await prism?.stop();
});

/** A new agent granted `scope` on unikraft: its name and an MCP client with its key. */
async function anAgent(scope = 'reads') {
  const name = `limited-${++agents}`;
  const created = await admin('POST', '/workspaces/default/agents', { name });
  await admin('POST', '/workspaces/default/grants', { agent: name, connection: 'unikraft', scope });
  return { name, client: await mcpClient(gateway.url, created.body.key as string) };
}

/** `ok`, or the code of the refusal. */
const outcomeOf = (reply: ToolReply) =>
  reply.isError ? (reply.structuredContent?.error?.code ?? 'error') : 'ok';

async function calls(
  client: Awaited<ReturnType<typeof anAgent>>['client'],
  n: number,
  tool = READ,
) {
  const replies: ToolReply[] = [];
  for (let i = 0; i < n; i++) replies.push(await callTool(client, tool));
  return replies;
}

describe('rate limits on calls', () => {
  it('refuse the call after the burst, with the wait, and audit it once as denied', async () => {
    const { name, client } = await anAgent();
    try {
      const set = await runPortcullisHere(
        ['limits', 'set', '--agent', name, '--per-minute', '1', '--burst', '2'],
        env,
      );
      expect(set).toMatchObject({ code: 0, stderr: '' });
      expect(set.stdout).toBe(`agent ${name}: 1 calls a minute, 2 at once\n`);
      const replies = await calls(client, 3);
      expect(replies.map(outcomeOf)).toEqual(['ok', 'ok', 'rate_limited']);
      const error = replies[2]?.structuredContent?.error;
      expect(error?.detail).toMatchObject({ limit: 'agent', perMinute: 1, burst: 2 });
      const wait = error?.detail?.retryAfterSeconds as number;
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
      expect(error?.message).toContain(`portcullis limits set --agent ${name}`);
      const events = await admin(
        'GET',
        `/audit?workspace=default&agent=${name}&reason=rate_limited`,
      );
      expect(events.body).toHaveLength(1);
      expect(events.body[0]).toMatchObject({ action: READ, decision: 'denied', outcome: null });
      expect(events.body[0].connectionId).toEqual(expect.any(String));
    } finally {
      await client.close();
    }
  });

  it('take no token for a call the policy refuses', async () => {
    const { name, client } = await anAgent('all');
    try {
      await admin('PUT', '/workspaces/default/limits', { agent: name, perMinute: 1, burst: 1 });
      // A write is off until an operator enables it: refused for that, three times.
      const refused = await calls(client, 3, 'unikraft_create_volume');
      expect(refused.map(outcomeOf)).toEqual([
        'action_disabled',
        'action_disabled',
        'action_disabled',
      ]);
      expect((await calls(client, 2)).map(outcomeOf)).toEqual(['ok', 'rate_limited']);
    } finally {
      await client.close();
    }
  });

  it("count every agent's calls on a connection together, until the limit is cleared", async () => {
    const one = await anAgent();
    const two = await anAgent();
    try {
      const set = await admin('PUT', '/workspaces/default/limits', {
        connection: 'unikraft',
        perMinute: 1,
        burst: 1,
      });
      expect(set.body).toMatchObject({ subject: 'connection', name: 'unikraft', burst: 1 });
      expect((await calls(one.client, 1)).map(outcomeOf)).toEqual(['ok']);
      const [refused] = await calls(two.client, 1);
      expect(outcomeOf(refused!)).toBe('rate_limited');
      expect(refused?.structuredContent?.error?.detail).toMatchObject({ limit: 'connection' });
      const listed = await runPortcullisHere(['limits', 'list', '--json'], env);
      expect(JSON.parse(listed.stdout)).toContainEqual(
        expect.objectContaining({ subject: 'connection', name: 'unikraft', perMinute: 1 }),
      );
      const cleared = await runPortcullisHere(['limits', 'clear', '--connection', 'unikraft'], env);
      expect(cleared.stdout).toBe(
        'cleared the rate limit of connection unikraft; the default applies\n',
      );
      expect((await calls(two.client, 1)).map(outcomeOf)).toEqual(['ok']);
    } finally {
      await admin('POST', '/workspaces/default/limits/clear', { connection: 'unikraft' });
      await one.client.close();
      await two.client.close();
    }
  });

  it('say what they are set to, and refuse a limit of nobody or of zero', async () => {
    const { name, client } = await anAgent();
    await client.close();
    await runPortcullisHere(['limits', 'set', '--agent', name, '--per-minute', '30'], env);
    const listed = await runPortcullisHere(['limits', 'list'], env);
    expect(listed.stdout).toMatch(new RegExp(`agent\\s+${name}\\s+30\\s+30\\s`));
    const cases: Array<[string[], string]> = [
      [['limits', 'set', '--per-minute', '5'], '--agent'],
      [
        ['limits', 'set', '--agent', name, '--connection', 'unikraft', '--per-minute', '5'],
        '--agent',
      ],
      [['limits', 'set', '--agent', name, '--per-minute', '0'], '--per-minute'],
      [['limits', 'set', '--agent', 'nobody', '--per-minute', '5'], '--agent'],
    ];
    for (const [args, flag] of cases) {
      const refused = await runPortcullisHere(args, env);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr, args.join(' ')).toContain(flag);
    }
    const clear = await runPortcullisHere(['limits', 'clear', '--agent', name, '--json'], env);
    expect(JSON.parse(clear.stdout)).toEqual({ cleared: true });
    const again = await runPortcullisHere(['limits', 'clear', '--agent', name], env);
    expect(again.stdout).toBe(`agent ${name} had no rate limit of its own; nothing changed\n`);
  });
});
