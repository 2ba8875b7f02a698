/**
 * A streamed reply's clocks stop while its reader waits on someone else
 * (`pause`): a real loopback server whose event stream goes quiet after its
 * first event, as a 2025 MCP server's does while the agent answers its
 * question, and one that trickles a byte every 100 ms for as long as anyone
 * listens. The reply timeout is 300 ms and the deadline 1,000 ms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGuardedClient,
  type GuardedClient,
} from '../../../../runtime/core/outbound/guarded-client.ts';
import type { StreamedReply } from '../../../../runtime/core/outbound/streamed-exchange.ts';
import { type LoopbackServer, startLoopbackServer } from '../../../support/loopback-server.ts';
import { gatewayErrorOf } from '../../../support/reason.ts';

const REPLY_TIMEOUT_MS = 300;
const DEADLINE_MS = 1_000;

let server: LoopbackServer;
let client: GuardedClient;
const timers = new Set<NodeJS.Timeout>();

beforeAll(async () => {
  server = await startLoopbackServer({
    '/quiet': (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"asks":true}\n\n');
    },
    '/trickle': (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => response.write(':\n'), 100);
      timers.add(timer);
      response.on('close', () => clearInterval(timer));
    },
  });
  client = createGuardedClient({
    allowPrivateNetworks: true,
    replyTimeoutMs: REPLY_TIMEOUT_MS,
    deadlineMs: DEADLINE_MS,
  });
});

afterAll(async () => {
  for (const timer of timers) clearInterval(timer);
  await client.close();
  await server.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads the stream to its end, counting chunks; resolves with the error it ended with. */
async function readToEnd(reply: StreamedReply, seen: { chunks: number }): Promise<unknown> {
  try {
    for await (const _chunk of reply.chunks) seen.chunks++;
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('a paused streamed reply', () => {
  it('outlasts the reply timeout and the deadline while paused, and times out once resumed', async () => {
    const reply = await client.open({
      method: 'GET',
      url: new URL('/quiet', server.url),
      headers: {},
    });
    const seen = { chunks: 0 };
    const resume = reply.pause();
    const ended = readToEnd(reply, seen);
    // Quiet for longer than both clocks allow: nothing ends it while paused.
    await sleep(DEADLINE_MS + REPLY_TIMEOUT_MS);
    const settled = await Promise.race([ended.then(() => 'ended'), sleep(0).then(() => 'open')]);
    expect(settled).toBe('open');
    expect(seen.chunks).toBe(1);
    resume();
    // The reply timeout counts again from the resume: the quiet stream ends by it.
    const error = await gatewayErrorOf(ended.then((e) => Promise.reject(e)));
    expect({ code: error.code, cause: error.detail?.cause }).toEqual({
      code: 'upstream_timeout',
      cause: 'UND_ERR_BODY_TIMEOUT',
    });
  });

  it('counts only the time it ran against the deadline', async () => {
    const reply = await client.open({
      method: 'GET',
      url: new URL('/trickle', server.url),
      headers: {},
    });
    const seen = { chunks: 0 };
    const ended = readToEnd(reply, seen);
    await sleep(DEADLINE_MS / 2);
    const resume = reply.pause();
    await sleep(DEADLINE_MS);
    resume();
    // Past the deadline by the clock on the wall, short of it by the time that ran.
    const before = seen.chunks;
    await sleep(DEADLINE_MS / 5);
    expect(seen.chunks).toBeGreaterThan(before);
    const error = await gatewayErrorOf(ended.then((e) => Promise.reject(e)));
    expect(error.code).toBe('upstream_deadline_exceeded');
  });

  it('is resumed once, however often the resume is called', async () => {
    const reply = await client.open({
      method: 'GET',
      url: new URL('/quiet', server.url),
      headers: {},
    });
    const seen = { chunks: 0 };
    const first = reply.pause();
    const second = reply.pause();
    const ended = readToEnd(reply, seen);
    first();
    first();
    // One pause still holds: the quiet stream stays open past the reply timeout.
    await sleep(REPLY_TIMEOUT_MS * 2);
    expect(await Promise.race([ended.then(() => 'ended'), sleep(0).then(() => 'open')])).toBe(
      'open',
    );
    second();
    expect((await gatewayErrorOf(ended.then((e) => Promise.reject(e)))).code).toBe(
      'upstream_timeout',
    );
  });
});
