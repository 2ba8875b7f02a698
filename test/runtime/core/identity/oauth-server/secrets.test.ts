/**
 * No secret of the authorization server leaks: passwords, codes, PKCE
 * verifiers, refresh and access tokens appear in no audit event and in no
 * error reply, in any encoding; members and their consents are audited by id.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  addMember,
  removeMember,
  setMemberPassword,
} from '../../../../../runtime/core/operator/members.ts';
import { type OAuthGateway, startOAuthGateway } from '../../../../support/oauth/oauth-gateway.ts';
import {
  codeFor,
  exchange,
  registerClient,
  tokenRequest,
} from '../../../../support/oauth/raw-flow.ts';

let running: OAuthGateway;
beforeAll(async () => {
  running = await startOAuthGateway();
});
afterAll(() => running?.close());

function encodings(secret: string): string[] {
  return [
    secret,
    encodeURIComponent(secret),
    Buffer.from(secret).toString('base64'),
    JSON.stringify(secret).slice(1, -1),
  ];
}

it('keeps every secret out of the audit log and the error replies', async () => {
  const gateway = running.gateway.running.gateway;
  const ctx = gateway.operator('cli');
  const password = 'canary-password-5f3e1d9a';
  await addMember(ctx, { workspace: 'default', name: 'grace', password });
  await expect(
    setMemberPassword(ctx, { workspace: 'default', name: 'grace', password: 'tiny-canary' }),
  ).rejects.toThrow(/at least 12/);
  const client = await registerClient(running.url);
  const code = await codeFor(running.url, client);
  const tokens = await exchange(running.url, client, code);
  const replies: string[] = [];
  for (const attempt of [
    () => exchange(running.url, client, code),
    () =>
      tokenRequest(running.url, {
        grant_type: 'refresh_token',
        client_id: 'pcc_other',
        refresh_token: String(tokens.body.refresh_token),
      }),
    () =>
      tokenRequest(running.url, {
        grant_type: 'refresh_token',
        client_id: client.clientId,
        refresh_token: String(tokens.body.refresh_token),
      }),
  ]) {
    replies.push(JSON.stringify((await attempt()).body));
  }
  await removeMember(ctx, { workspace: 'default', name: 'grace' });
  const events = JSON.stringify(await gateway.store.audit.query({ limit: 10_000 }));
  expect(events).toContain('oauth.token.code');
  expect(events).toContain('oauth.code.replay');
  const secrets = [
    password,
    'tiny-canary',
    code.code,
    code.verifier,
    String(tokens.body.access_token),
    String(tokens.body.refresh_token),
  ];
  for (const secret of secrets) {
    for (const form of encodings(secret)) {
      expect(events).not.toContain(form);
      for (const reply of replies) expect(reply).not.toContain(form);
    }
  }
});
