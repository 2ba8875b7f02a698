/**
 * Attempt limits, counted in the shared state: sign-ins per member name
 * (10 failures in 15 minutes; after that even the right password waits;
 * counted before the password is checked, so concurrent guesses cannot
 * overrun it), and
 * registrations per address (20 an hour, then RFC 6749's
 * `temporarily_unavailable` with Retry-After).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addMember } from '../../../runtime/core/operator/members.ts';
import { openConsentPage, postConsent } from '../../support/oauth/consent-bot.ts';
import { MEMBER, type OAuthGateway, startOAuthGateway } from '../../support/oauth/oauth-gateway.ts';
import { authorizeUrl, pkce, registerClient } from '../../support/oauth/raw-flow.ts';

let running: OAuthGateway;
beforeAll(async () => {
  running = await startOAuthGateway();
});
afterAll(() => running?.close());

it('stops signing a member in after 10 failed attempts, the right password too', async () => {
  const client = await registerClient(running.url);
  const page = await openConsentPage(
    authorizeUrl(running.url, client, { code_challenge: pkce().challenge }),
  );
  if (!('fields' in page)) throw new Error('no consent page');
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 10; attempt++) {
    statuses.push(
      (await postConsent(running.url, page, { ...MEMBER, password: `wrong password ${attempt}` }))
        .status,
    );
  }
  expect(statuses).toEqual(Array(10).fill(401));
  const blocked = await postConsent(running.url, page, MEMBER);
  expect(blocked.status).toBe(429);
  expect(await blocked.text()).toContain('Too many sign-in attempts');
  const events = await running.gateway.running.gateway.store.audit.query({
    action: 'oauth.sign_in',
  });
  expect(events.map((e) => e.reason)).toEqual([
    'rate_limited',
    ...Array(10).fill('unauthenticated'),
  ]);
});

it('counts concurrent guesses before checking them: of 40 at once against one name, 10 are checked', async () => {
  const ctx = running.gateway.running.gateway.operator('cli');
  await addMember(ctx, {
    workspace: 'default',
    name: 'grace',
    password: 'a long enough passphrase',
  });
  const client = await registerClient(running.url);
  const page = await openConsentPage(
    authorizeUrl(running.url, client, { code_challenge: pkce().challenge }),
  );
  if (!('fields' in page)) throw new Error('no consent page');
  const replies = await Promise.all(
    Array.from({ length: 40 }, (_, n) =>
      postConsent(running.url, page, { member: 'grace', password: `guess ${n}` }),
    ),
  );
  const statuses = replies.map((reply) => reply.status);
  expect(statuses.filter((status) => status === 401)).toHaveLength(10);
  expect(statuses.filter((status) => status === 429)).toHaveLength(30);
});

it('refuses the 21st registration from one address in an hour', async () => {
  // The tests before registered two clients already.
  for (let n = 0; n < 18; n++) await registerClient(running.url);
  const reply = await fetch(`${running.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'] }),
  });
  expect(reply.status).toBe(429);
  expect(reply.headers.get('retry-after')).toBe('60');
  expect(((await reply.json()) as { error: string }).error).toBe('temporarily_unavailable');
});
