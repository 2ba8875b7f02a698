/**
 * The MCP conformance suite's authorization-server scenarios against a
 * running gateway: the metadata document (with CIMD support) and the
 * authorization code grant, signed in by the harness's test-only member
 * through the real consent page. Every check must pass, with no warning.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runAuthorizationConformance } from '../../../../../scripts/conformance/authorization-server.ts';
import { freePort } from '../../../../support/free-port.ts';
import { consent } from '../../../../support/oauth/consent-bot.ts';
import {
  MEMBER,
  type OAuthGateway,
  startOAuthGateway,
} from '../../../../support/oauth/oauth-gateway.ts';
import { registerClient } from '../../../../support/oauth/raw-flow.ts';

let running: OAuthGateway;

beforeAll(async () => {
  running = await startOAuthGateway();
});
afterAll(() => running?.close());

it('passes both authorization-server scenarios of the conformance suite', async () => {
  const port = await freePort();
  const client = await registerClient(running.url, `http://127.0.0.1:${port}/callback`);
  const checks = await runAuthorizationConformance({
    issuer: running.url,
    clientId: client.clientId,
    port,
    signIn: async (url) => (await consent(url, MEMBER)).location,
  });
  const seen = checks
    .map((check) => [check.id, check.status, check.errorMessage ?? ''])
    .sort(([a], [b]) => (a! < b! ? -1 : 1));
  expect(seen).toEqual([
    ['authorization-code-grant', 'SUCCESS', ''],
    ['authorization-server-metadata', 'SUCCESS', ''],
    ['authorization-server-metadata-cimd', 'SUCCESS', ''],
  ]);
});
