/**
 * Three gateway processes sharing PostgreSQL and Redis behind Debian's nginx
 * (round-robin, `deploy/nginx/portcullis.conf`), in front of a real SDK v2
 * MCP server connected by URL: an SDK client's 2025-11-25 session goes on
 * whichever replica each request reaches; an authorization code issued on
 * one replica is redeemed once on another; a change the `portcullis` command
 * makes is refused on every replica at the next request; a 2026-07-28
 * agent's answers to questions a stateful upstream asks reach the replica
 * that holds the call, whichever one nginx sends them to; and `kill -9` of a
 * replica during concurrent calls loses no audited result (the victim with its
 * audit journal on, folded by the next process in its data folder; the others
 * by group commit), while the others and the client's session go on serving.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { argumentHash } from '../../runtime/core/pipeline/arguments.ts';
import { callTool, mcpClient } from '../support/gateway.ts';
import { modernToolCall } from '../support/mcp/raw-http.ts';
import { MEMBER } from '../support/oauth/oauth-gateway.ts';
import { codeFor, exchange, mcpStatus, registerClient } from '../support/oauth/raw-flow.ts';
import { startUpstream, type Upstream } from '../support/remote/upstream-servers.ts';
import { type ReplicaSet, startReplicaSet } from '../support/replicas.ts';
import type { ServerProcess } from '../support/run-server.ts';

const TOOL = 'weather__get_weather';
let set: ReplicaSet;
/** The set's `portcullis` command (known before the set has finished starting). */
let command: ReplicaSet['cli'];
let upstream: Upstream;
/** A stateful upstream whose tools ask mid-call: the replica that called holds the exchange. */
let asking: Upstream;

/** `portcullis <args> --json`, which must succeed: its JSON. */
async function cli<T = Record<string, unknown>>(...args: string[]): Promise<T> {
  const run = await command([...args, '--json'], { PW: MEMBER.password });
  if (run.code !== 0) throw new Error(`portcullis ${args.join(' ')}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

/** A new agent with a reads grant on `weather`: its key. */
async function agentKey(name: string, connections = ['weather']): Promise<string> {
  const { key } = await cli<{ key: string }>('agent', 'create', name);
  for (const connection of connections) await cli('grant', name, connection);
  return key;
}

beforeAll(async () => {
  [upstream, asking] = await Promise.all([
    startUpstream('modern'),
    startUpstream('stateful', { askingTools: true }),
  ]);
  set = await startReplicaSet({
    count: 3,
    // The audit journal is opt-in: the third replica (the one kill -9 takes) has it on, the
    // others write to the store by group commit (the default), so kill -9 covers both paths.
    replicaEnvironment: (index) => ({ PORTCULLIS_AUDIT_JOURNAL: index === 2 ? 'on' : 'off' }),
    prepare: async (run) => {
      command = run;
      await cli('connect-url', `${upstream.url}`, '--name', 'weather');
      await cli('review', 'weather', '--all');
      await cli('connect-url', `${asking.url}`, '--name', 'ask');
      await cli('review', 'ask', '--all');
      await cli('member', 'add', MEMBER.member, '--password-env', 'PW');
    },
  });
  // Generous: three processes start on a machine that may be busy.
}, 300_000);

afterAll(async () => {
  await set?.close();
  await upstream?.close();
  await asking?.close();
});

/** The reason code of a refused call, or `ok`. */
async function outcome(url: string, key: string, city = 'Oslo'): Promise<string> {
  const client = await mcpClient(url, key).catch((error: unknown) => {
    const status = (error as { code?: number }).code;
    return status === 401 ? 'unauthenticated' : Promise.reject(error);
  });
  if (typeof client === 'string') return client;
  try {
    const reply = await callTool(client, TOOL, { city });
    return reply.isError ? (reply.structuredContent?.error?.code ?? 'error') : 'ok';
  } finally {
    await client.close();
  }
}

describe('replicas behind nginx', { timeout: 180_000 }, () => {
  it('continue one SDK client session on every replica', async () => {
    const key = await agentKey('roamer');
    const before = set.nginx.served();
    const client = await mcpClient(set.url, key);
    try {
      for (let call = 0; call < 12; call++) {
        const reply = await callTool(client, TOOL, { city: `city-${call}` });
        expect(reply.content[0]?.text).toBe(`sunny in city-${call}`);
      }
    } finally {
      await client.close();
    }
    const after = set.nginx.served();
    for (const replica of set.replicas) {
      const host = new URL(replica.url).host;
      expect((after.get(host) ?? 0) - (before.get(host) ?? 0)).toBeGreaterThan(2);
    }
  });

  it('redeem an authorization code issued on one replica once, on another; its replay revokes the tokens everywhere', async () => {
    const [a, b, c] = set.replicas as [ServerProcess, ServerProcess, ServerProcess];
    const everywhere = [a.url, b.url, c.url, set.url];
    const client = await registerClient(set.url);
    // The consent is given on replica a: the code is its.
    const code = await codeFor(a.url, client);
    const redeemed = await exchange(b.url, client, code);
    expect(redeemed.status).toBe(200);
    const token = String(redeemed.body.access_token);
    expect(await Promise.all(everywhere.map((url) => mcpStatus(url, token)))).toEqual([
      200, 200, 200, 200,
    ]);
    // Presented again, on another replica: refused, and the tokens it gave are revoked on every one.
    expect((await exchange(c.url, client, code)).body.error).toBe('invalid_grant');
    expect((await exchange(set.url, client, code)).body.error).toBe('invalid_grant');
    expect(await Promise.all(everywhere.map((url) => mcpStatus(url, token)))).toEqual([
      401, 401, 401, 401,
    ]);
  });

  it('relay the answers to two questions asked upstream to the replica that holds the call', async () => {
    const key = await agentKey('asked', ['ask']);
    const before = set.nginx.served();
    const call = (extra: Record<string, unknown> = {}) =>
      modernToolCall(`${set.url}/mcp`, key, 'ask__ask_two', extra);
    const answering = (question: Record<string, unknown>, content: Record<string, unknown>) => {
      expect(question.resultType).toBe('input_required');
      const [asked] = Object.keys(question.inputRequests as object);
      return {
        requestState: question.requestState,
        inputResponses: { [asked!]: { action: 'accept', content } },
      };
    };
    // Three requests in a row: round-robin sends each to another replica.
    const first = await call();
    const second = await call(answering(first, { name: 'Eve' }));
    const done = await call(answering(second, { colour: 'blue' }));
    expect((done.content as Array<{ text: string }>)[0]?.text).toBe('you like blue');
    const after = set.nginx.served();
    const reached = set.replicas.filter((replica) => {
      const host = new URL(replica.url).host;
      return (after.get(host) ?? 0) > (before.get(host) ?? 0);
    });
    expect(reached.length).toBeGreaterThan(1);
  });

  it("refuse on every replica, at once, what the command's disable, grant revoke and agent revoke took away", async () => {
    const key = await agentKey('watched');
    const everywhere = () =>
      Promise.all(
        [...set.replicas.map((replica) => replica.url), set.url].map((url) => outcome(url, key)),
      );
    expect(await everywhere()).toEqual(['ok', 'ok', 'ok', 'ok']);

    await cli('disable', 'weather', 'get_weather');
    expect(await everywhere()).toEqual(Array(4).fill('action_disabled'));
    await cli('enable', 'weather', 'get_weather');
    expect(await everywhere()).toEqual(['ok', 'ok', 'ok', 'ok']);

    await cli('grant', 'revoke', 'watched', 'weather');
    expect(await everywhere()).toEqual(Array(4).fill('not_granted'));
    await cli('grant', 'watched', 'weather');
    expect(await everywhere()).toEqual(['ok', 'ok', 'ok', 'ok']);

    await cli('agent', 'revoke', 'watched');
    expect(await everywhere()).toEqual(Array(4).fill('unauthenticated'));
  });
});

describe('kill -9 of a replica during concurrent calls', { timeout: 180_000 }, () => {
  const CALLS = 300;
  const CONCURRENCY = 8;
  const received: string[] = [];
  const failed: string[] = [];
  let key: string;
  let client: Client;
  let victim: ServerProcess;

  beforeAll(async () => {
    key = await agentKey('steady');
    client = await mcpClient(set.url, key);
    victim = set.replicas[2]!;
    let next = 0;
    const worker = async () => {
      while (next < CALLS) {
        const call = next++;
        // A third of the way in, one replica dies without a word.
        if (call === Math.floor(CALLS / 3)) victim.child.kill('SIGKILL');
        const city = `call-${call}`;
        try {
          const reply = await callTool(client, TOOL, { city });
          if (!reply.isError && reply.content[0]?.text === `sunny in ${city}`) received.push(city);
          else failed.push(city);
        } catch {
          failed.push(city);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  }, 300_000);

  afterAll(async () => {
    await client?.close();
  });

  it('audits every result the agent received', async () => {
    expect(await victim.exited).toBe('SIGKILL');
    // Most calls went through; those in flight on the dead replica may have failed.
    expect(received.length).toBeGreaterThan(CALLS / 2);
    // Its audit journal is in its data folder: the next process there (its restart) folds
    // what the kill left unfolded before it does anything else; this command is one.
    await command(['audit', 'head'], { PORTCULLIS_DATA_DIR: victim.dataDir! });
    const run = await command(['audit', '--agent', 'steady', '--limit', '10000', '--json']);
    const events = run.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { argumentHash: string; outcome: string });
    const hashes = new Set(events.filter((e) => e.outcome === 'ok').map((e) => e.argumentHash));
    const unaudited = received.filter((city) => !hashes.has(argumentHash({ city })));
    expect(unaudited).toEqual([]);
  });

  it('keeps serving on the other replicas, the same session included', async () => {
    for (let call = 0; call < 6; call++) {
      const reply = await callTool(client, TOOL, { city: `after-${call}` });
      expect(reply.content[0]?.text).toBe(`sunny in after-${call}`);
    }
    for (const replica of set.replicas.slice(0, 2))
      expect(await outcome(replica.url, key)).toBe('ok');
  });
});
