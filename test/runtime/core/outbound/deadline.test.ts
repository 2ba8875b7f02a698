/**
 * The total deadline: a real loopback server that answers at once and then
 * sends one byte of its body every 100 ms, well inside the reply timeout
 * (which limits only each pause), for as long as anyone listens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGuardedClient,
  type GuardedClient,
} from '../../../../runtime/core/outbound/guarded-client.ts';
import { type LoopbackServer, startLoopbackServer } from '../../../support/loopback-server.ts';
import { gatewayErrorOf } from '../../../support/reason.ts';

let server: LoopbackServer;
let client: GuardedClient;
const trickles = new Set<NodeJS.Timeout>();

beforeAll(async () => {
  server = await startLoopbackServer({
    '/trickle': (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => response.write(' '), 100);
      trickles.add(timer);
      response.on('close', () => clearInterval(timer));
    },
    '/quick': (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    },
  });
  client = createGuardedClient({
    allowPrivateNetworks: true,
    replyTimeoutMs: 400,
    deadlineMs: 1_000,
  });
});

afterAll(async () => {
  for (const timer of trickles) clearInterval(timer);
  await client.close();
  await server.close();
});

describe('the total deadline of an upstream call', () => {
  it('ends a reply that trickles in forever with upstream_deadline_exceeded', async () => {
    const error = await gatewayErrorOf(
      client.send({ method: 'GET', url: new URL('/trickle', server.url), headers: {} }),
    );
    expect({
      code: error.code,
      phase: error.detail?.phase,
      requestSent: error.detail?.requestSent,
    }).toEqual({ code: 'upstream_deadline_exceeded', phase: 'reply', requestSent: true });
  });

  it('leaves a call that finishes in time alone, and the client reusable', async () => {
    const reply = await client.send({
      method: 'GET',
      url: new URL('/quick', server.url),
      headers: {},
    });
    expect(reply.status).toBe(200);
  });
});
