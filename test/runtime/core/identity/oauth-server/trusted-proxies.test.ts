/**
 * Behind a reverse proxy every client arrives from the proxy's address, so
 * limits per address would count the whole deployment together. With
 * `PORTCULLIS_TRUSTED_PROXIES` the address a trusted proxy names in
 * `X-Forwarded-For` is counted; without it, that header is not believed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthGateway, startOAuthGateway } from '../../../../support/oauth/oauth-gateway.ts';

function register(url: string, forwardedFor: string): Promise<number> {
  return fetch(`${url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
    body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'] }),
  }).then((reply) => reply.status);
}

async function registerTwentyOne(url: string, forwardedFor: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let n = 0; n < 21; n++) statuses.push(await register(url, forwardedFor));
  return statuses;
}

describe('behind a trusted proxy', () => {
  let running: OAuthGateway;
  beforeAll(async () => {
    running = await startOAuthGateway({ environment: { PORTCULLIS_TRUSTED_PROXIES: 'loopback' } });
  });
  afterAll(() => running?.close());

  it('counts the client the proxy names, so one client’s limit is not another’s', async () => {
    const statuses = await registerTwentyOne(running.url, '203.0.113.5');
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(201));
    expect(statuses[20]).toBe(429);
    expect(await register(running.url, '198.51.100.7')).toBe(201);
  });
});

describe('with no trusted proxy', () => {
  let running: OAuthGateway;
  beforeAll(async () => {
    running = await startOAuthGateway();
  });
  afterAll(() => running?.close());

  it('does not believe X-Forwarded-For: a client cannot pick a fresh address for itself', async () => {
    const statuses = await registerTwentyOne(running.url, '203.0.113.5');
    expect(statuses[20]).toBe(429);
    expect(await register(running.url, '198.51.100.7')).toBe(429);
  });
});
