/**
 * The MCP SDK v2 client (@modelcontextprotocol/client 2.4.0) with its own
 * OAuth provider through the whole flow: it meets the 401, discovers the
 * resource and the server, registers, sends the person to the consent page
 * (the harness signs in for them), finishes with the code (checking `iss`),
 * lists and calls tools, refreshes on its own when its access token stops
 * working, and is locked out once its tokens are revoked.
 */
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consent } from '../../../../support/oauth/consent-bot.ts';
import { MemoryProvider } from '../../../../support/oauth/memory-provider.ts';
import {
  MEMBER,
  type OAuthGateway,
  READ_ARGS,
  READ_TOOL,
  startOAuthGateway,
} from '../../../../support/oauth/oauth-gateway.ts';

const REDIRECT = 'http://127.0.0.1:7788/oauth/callback';

let running: OAuthGateway;

beforeAll(async () => {
  running = await startOAuthGateway();
});
afterAll(() => running?.close());

function transport(provider: MemoryProvider): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`), {
    authProvider: provider,
  });
}

async function connected(provider: MemoryProvider): Promise<Client> {
  const client = new Client({ name: 'sdk-v2-oauth', version: '1.0.0' });
  await client.connect(transport(provider));
  return client;
}

/** A client of its own (its own registration), signed in with consent, its agent granted. */
async function signedIn(): Promise<MemoryProvider> {
  const provider = new MemoryProvider(REDIRECT, 'SDK v2 test');
  const first = transport(provider);
  await expect(
    new Client({ name: 'sdk-v2-oauth', version: '1.0.0' }).connect(first),
  ).rejects.toBeInstanceOf(UnauthorizedError);
  const { location } = await consent(provider.authorizationUrl!, MEMBER);
  await first.finishAuth(location.searchParams);
  await running.grantConsentAgents();
  return provider;
}

describe('the MCP SDK v2 client with its OAuth provider', () => {
  it('is sent to sign in, and connects with the code it brings back', async () => {
    const provider = new MemoryProvider(REDIRECT, 'SDK v2 test');
    const first = transport(provider);
    await expect(
      new Client({ name: 'sdk-v2-oauth', version: '1.0.0' }).connect(first),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toMatch(/^pcc_/);
    const url = provider.authorizationUrl!;
    expect(url.searchParams.get('resource')).toBe(`${running.url}/mcp`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    const { location } = await consent(url, MEMBER);
    await first.finishAuth(location.searchParams);
    expect(provider.stored?.access_token).toMatch(/^eyJ/);
    await running.grantConsentAgents();
    const client = await connected(provider);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain(READ_TOOL);
    const result = await client.callTool({ name: READ_TOOL, arguments: READ_ARGS });
    expect(result.isError).toBeFalsy();
    await client.close();
  });

  it('refreshes by itself when its access token is refused', async () => {
    const provider = await signedIn();
    const before = provider.stored!;
    provider.stored = { ...before, access_token: `${before.access_token.slice(0, -4)}AAAA` };
    const client = await connected(provider);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect(provider.stored.refresh_token).not.toBe(before.refresh_token);
    await client.close();
  });

  it('is locked out once the refresh token it holds is revoked', async () => {
    const provider = await signedIn();
    const revoked = await fetch(`${running.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: provider.stored!.refresh_token!,
        client_id: provider.client!.client_id,
      }),
    });
    expect(revoked.status).toBe(200);
    // Its access token still looks fine to it: the gateway refuses it, and the refresh too.
    await expect(connected(provider)).rejects.toThrow('refresh_token: revoked');
  });
});
