/**
 * What an unauthenticated `GET /oauth/authorize` can make the gateway keep:
 * nothing. A flood of valid requests from one address, each with a long
 * `state`, each gets its consent page, and the shared state (in process, or
 * Redis with `REDIS_URL`) is asked to store nothing for any of them: the
 * pending request travels sealed in the page's form. A `state` over the cap
 * goes back to the client as `invalid_request`. A page from the flood still
 * works, once.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_STATE_LENGTH } from '../../../../../runtime/core/identity/oauth-server/authorize-endpoint.ts';
import type { SharedState } from '../../../../../runtime/core/ports/shared-state/shared-state.ts';
import { openConsentPage, postConsent } from '../../../../support/oauth/consent-bot.ts';
import {
  MEMBER,
  type OAuthGateway,
  startOAuthGateway,
} from '../../../../support/oauth/oauth-gateway.ts';
import {
  authorizeUrl,
  pkce,
  type RegisteredTestClient,
  registerClient,
} from '../../../../support/oauth/raw-flow.ts';
import { TEST_REDIS_URL } from '../../../../support/redis.ts';

const FLOOD = 300;
const STORING = ['set', 'add', 'compareAndSet', 'increment', 'touch'] as const;

/** Counts every call that could make `state` keep something. */
function countStoring(state: SharedState): { count(): number } {
  const spies = STORING.map((method) => vi.spyOn(state, method));
  return { count: () => spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0) };
}

describe.each([
  ['in process', {}],
  ['with REDIS_URL', { REDIS_URL: TEST_REDIS_URL }],
])('%s', (_name, environment: Record<string, string>) => {
  let running: OAuthGateway;
  let client: RegisteredTestClient;
  beforeAll(async () => {
    running = await startOAuthGateway({ environment });
    client = await registerClient(running.url);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await running?.close();
  });

  it('keeps nothing for a flood of valid authorization requests from one address', async () => {
    const state = running.gateway.running.gateway.state;
    const sizeBefore = 'size' in state ? (state.size as number) : undefined;
    const storing = countStoring(state);
    const { challenge } = pkce();
    const url = authorizeUrl(running.url, client, {
      code_challenge: challenge,
      state: 's'.repeat(MAX_STATE_LENGTH),
    });
    const statuses: number[] = [];
    for (let batch = 0; batch < FLOOD / 10; batch++) {
      const replies = await Promise.all(
        Array.from({ length: 10 }, () =>
          fetch(url, { redirect: 'manual' }).then(async (reply) => {
            await reply.arrayBuffer();
            return reply.status;
          }),
        ),
      );
      statuses.push(...replies);
    }
    expect(statuses).toEqual(Array(FLOOD).fill(200));
    expect(storing.count()).toBe(0);
    if (sizeBefore !== undefined)
      expect((state as unknown as { size: number }).size).toBe(sizeBefore);
  });

  it('sends a state over the cap back as invalid_request, without echoing it', async () => {
    const reply = await fetch(
      authorizeUrl(running.url, client, {
        code_challenge: pkce().challenge,
        state: 's'.repeat(12 * 1024),
      }),
      { redirect: 'manual' },
    );
    expect(reply.status).toBe(302);
    const location = new URL(reply.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.has('state')).toBe(false);
  });

  it('approves a sealed request once: its form posted again is refused', async () => {
    const page = await openConsentPage(
      authorizeUrl(running.url, client, { code_challenge: pkce().challenge }),
    );
    if (!('fields' in page)) throw new Error('no consent page');
    const approved = await postConsent(running.url, page, MEMBER);
    expect(approved.status).toBe(303);
    expect(new URL(approved.headers.get('location')!).searchParams.get('code')).toMatch(/^pco_/);
    // A decided request is spent: 409 consent_decided, on a page, no code.
    const again = await postConsent(running.url, page, MEMBER);
    expect(again.status).toBe(409);
    expect(again.headers.get('location')).toBeNull();
    expect(await again.text()).toContain('already approved');
  });

  it('refuses a form whose sealed request was altered', async () => {
    const page = await openConsentPage(
      authorizeUrl(running.url, client, { code_challenge: pkce().challenge }),
    );
    if (!('fields' in page)) throw new Error('no consent page');
    const [header, payload, signature] = page.fields.request!.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    claims.authorization_request.redirectUri = 'https://evil.example/steal';
    const forged = [header, Buffer.from(JSON.stringify(claims)).toString('base64url'), signature];
    const reply = await postConsent(running.url, page, MEMBER, {
      fields: { request: forged.join('.') },
    });
    expect(reply.status).toBe(400);
    expect(reply.headers.get('location')).toBeNull();
  });
});
