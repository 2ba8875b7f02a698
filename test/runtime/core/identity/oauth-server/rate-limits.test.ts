/**
 * Attempt limits, counted in the shared state. Sign-ins are slowed per
 * address first (30 attempts in 15 minutes; after that even the right
 * password waits there), so guesses from one address never lock a member
 * out of signing in from another; a name locks only after 100 attempts its
 * addresses were allowed to make. Attempts are counted before the password
 * is checked, so concurrent guesses cannot overrun a limit. Registrations:
 * 20 an hour per address, then RFC 6749's `temporarily_unavailable` with
 * Retry-After. A refused flood is audited as a count (its 1st, 10th, 100th…
 * refusal), not a row per request. Behind a trusted proxy (loopback here),
 * each test names its own client address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  countAttempt,
  isAuditedRefusal,
  SIGN_IN_PER_ADDRESS,
  SIGN_IN_PER_MEMBER,
} from '../../../../../runtime/core/identity/oauth-server/rate-limits.ts';
import { MemorySharedState } from '../../../../../runtime/core/ports/shared-state/memory-shared-state.ts';
import { openConsentPage, postConsent } from '../../../../support/oauth/consent-bot.ts';
import {
  MEMBER,
  type OAuthGateway,
  startOAuthGateway,
} from '../../../../support/oauth/oauth-gateway.ts';
import { authorizeUrl, pkce, registerClient } from '../../../../support/oauth/raw-flow.ts';

describe('against a gateway', () => {
  let running: OAuthGateway;
  beforeAll(async () => {
    running = await startOAuthGateway({
      environment: { PORTCULLIS_TRUSTED_PROXIES: 'loopback' },
    });
  });
  afterAll(() => running?.close());

  const from = (address: string) => ({ 'x-forwarded-for': address });
  const auditRows = (action: string) =>
    running.gateway.running.gateway.store.audit.query({
      action,
      reason: 'rate_limited',
      limit: 10_000,
    });

  it('slows one address down after 30 attempts (counted before checking, concurrent ones too), lets the member in from another, and audits the refused flood as counts', async () => {
    const client = await registerClient(running.url);
    const page = await openConsentPage(
      authorizeUrl(running.url, client, { code_challenge: pkce().challenge }),
    );
    if (!('fields' in page)) throw new Error('no consent page');
    const signInFrom = (address: string, password: string) =>
      postConsent(running.url, page, { ...MEMBER, password }, { headers: from(address) }).then(
        (reply) => reply.status,
      );

    const guesses = await Promise.all(
      Array.from({ length: 40 }, (_, n) => signInFrom('203.0.113.1', `wrong password ${n}`)),
    );
    expect(guesses.filter((status) => status === 401)).toHaveLength(30);
    expect(guesses.filter((status) => status === 429)).toHaveLength(10);
    expect(await signInFrom('203.0.113.1', MEMBER.password)).toBe(429);
    for (let n = 0; n < 89; n++) expect(await signInFrom('203.0.113.1', 'guess')).toBe(429);
    // 100 refusals so far: the 1st, 10th and 100th are audited.
    expect((await auditRows('oauth.sign_in')).map((row) => row.subject).sort()).toEqual([
      '10 refused in this window',
      '100 refused in this window',
      null,
    ]);
    expect(await signInFrom('198.51.100.1', MEMBER.password)).toBe(303);
  });

  it('refuses the 21st registration from one address in an hour, and audits a flood of them as counts', async () => {
    const register = () =>
      fetch(`${running.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...from('203.0.113.4') },
        body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'] }),
      });
    for (let n = 0; n < 20; n++) expect((await register()).status).toBe(201);
    const reply = await register();
    expect(reply.status).toBe(429);
    expect(reply.headers.get('retry-after')).toBe('60');
    expect(((await reply.json()) as { error: string }).error).toBe('temporarily_unavailable');
    for (let n = 0; n < 99; n++) expect((await register()).status).toBe(429);
    expect(await auditRows('oauth.client.register')).toHaveLength(3);
  });
});

describe('the sign-in limits', () => {
  const signInAttempt = (state: MemorySharedState, address: string, name: string) =>
    countAttempt(state, [
      { limit: SIGN_IN_PER_ADDRESS, subject: address },
      { limit: SIGN_IN_PER_MEMBER, subject: name },
    ]);

  it('never charges a name for attempts its address was refused: one address cannot lock a name', async () => {
    const state = new MemorySharedState();
    for (let n = 0; n < 1000; n++) await signInAttempt(state, '203.0.113.1', 'ada');
    expect(await signInAttempt(state, '198.51.100.1', 'ada')).toEqual({ within: true });
  });

  it('locks a name after 100 attempts from many addresses', async () => {
    const state = new MemorySharedState();
    for (let n = 0; n < 100; n++) {
      expect(await signInAttempt(state, `192.0.2.${n % 5}`, 'ada')).toEqual({ within: true });
    }
    expect(await signInAttempt(state, '198.51.100.1', 'ada')).toMatchObject({
      within: false,
      limit: SIGN_IN_PER_MEMBER,
      refused: 1,
    });
  });

  it.each([
    [1, true],
    [2, false],
    [9, false],
    [10, true],
    [11, false],
    [100, true],
    [1000, true],
    [1001, false],
  ])('audits refusal number %i: %s', (refused, audited) => {
    expect(isAuditedRefusal(refused)).toBe(audited);
  });
});
