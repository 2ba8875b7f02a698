/**
 * The step-up form follows the client, not the deployment: on one gateway
 * (no `PORTCULLIS_OAUTH_STEP_UP`), a client registered with ChatGPT's
 * connector callback as its redirect URI gets a write it lacks the scope for
 * as an `isError` result carrying the challenge in
 * `_meta["mcp/www_authenticate"]`, and steps up from it (it authorizes again
 * for the scope the challenge names, and the write goes through); the MCP SDK
 * v2 client, registered with a loopback redirect, gets HTTP 403 with
 * `WWW-Authenticate` and steps up by itself. An operator's choice for a
 * client (`portcullis oauth client <id> --step-up`) overrides its default at
 * the client's next request, and the consent review says the form.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../../../../support/gateway.ts';
import { consent, openConsentPage, postConsent } from '../../../../support/oauth/consent-bot.ts';
import { MemoryProvider } from '../../../../support/oauth/memory-provider.ts';
import {
  MEMBER,
  type OAuthGateway,
  READ_ARGS,
  READ_TOOL,
  startOAuthGateway,
  WRITE_ARGS,
  WRITE_TOOL,
} from '../../../../support/oauth/oauth-gateway.ts';
import {
  authorizeUrl,
  exchange,
  pkce,
  type RegisteredTestClient,
} from '../../../../support/oauth/raw-flow.ts';
import { runPortcullisHere } from '../../../../support/run-cli.ts';

/** The shape seed 002 gives: `https://chatgpt.com/connector/oauth/{callback_id}`. */
const CHATGPT_REDIRECT = 'https://chatgpt.com/connector/oauth/cb_6f1c2e9a4d';
const SDK_REDIRECT = 'http://127.0.0.1:9/oauth/callback';

let running: OAuthGateway;

beforeAll(async () => {
  running = await startOAuthGateway({
    environment: { PORTCULLIS_OAUTH_DEFAULT_SCOPES: 'tools:read tools:write' },
  });
});
afterAll(() => running?.close());

async function registered(name: string, redirectUri: string): Promise<RegisteredTestClient> {
  const reply = await fetch(`${running.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: [redirectUri] }),
  });
  expect(reply.status).toBe(201);
  return { clientId: ((await reply.json()) as { client_id: string }).client_id, redirectUri };
}

/** The member approves `scopes` for the client on the consent page; the access token it gets. */
async function tokenFor(client: RegisteredTestClient, scopes: string): Promise<string> {
  const { verifier, challenge } = pkce();
  const { location } = await consent(
    authorizeUrl(running.url, client, { code_challenge: challenge, scope: scopes }),
    MEMBER,
  );
  const tokens = await exchange(running.url, client, {
    code: location.searchParams.get('code')!,
    verifier,
  });
  expect(tokens.status).toBe(200);
  await running.grantConsentAgents();
  return String(tokens.body.access_token);
}

/** A `tools/call` on the 2025-11-25 wire with this token, as a connector sends it: the raw reply. */
async function call(token: string, name: string, args: unknown) {
  const headers = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const opened = await fetch(`${running.url}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'connector', version: '1' },
      },
    }),
  });
  expect(opened.status).toBe(200);
  await opened.text();
  const session = opened.headers.get('mcp-session-id')!;
  const reply = await fetch(`${running.url}/mcp`, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name, arguments: args },
    }),
  });
  const text = await reply.text();
  const json = JSON.parse(
    text.startsWith('{')
      ? text
      : (text.split('\n').find((l) => l.startsWith('data: ')) ?? '').slice(6),
  );
  return { status: reply.status, challenge: reply.headers.get('www-authenticate'), json };
}

/** The scope a challenge names, as a client reads it to step up. */
function scopeOf(challenge: string): string {
  return /scope="([^"]+)"/.exec(challenge)?.[1] ?? '';
}

describe('one deployment, two clients', () => {
  it('answers the ChatGPT-shaped client with the result form, from which it steps up', async () => {
    const chatgpt = await registered('ChatGPT', CHATGPT_REDIRECT);
    const readOnly = await tokenFor(chatgpt, 'tools:read');
    expect((await call(readOnly, READ_TOOL, READ_ARGS)).json.result.isError).toBeFalsy();

    const refused = await call(readOnly, WRITE_TOOL, WRITE_ARGS);
    expect(refused.status).toBe(200);
    expect(refused.challenge).toBeNull();
    expect(refused.json.result.isError).toBe(true);
    expect(refused.json.result.structuredContent.error.code).toBe('insufficient_scope');
    const [challenge] = refused.json.result._meta['mcp/www_authenticate'] as string[];
    expect(challenge).toContain('error="insufficient_scope"');

    // ChatGPT reads the challenge and sends the member to authorize the scope it names.
    const steppedUp = await tokenFor(chatgpt, scopeOf(challenge!));
    const written = await call(steppedUp, WRITE_TOOL, WRITE_ARGS);
    expect(written.json.result.isError).toBeFalsy();
  });

  it('answers the MCP SDK v2 client with HTTP 403, from which it steps up by itself', async () => {
    const provider = new MemoryProvider(SDK_REDIRECT, 'SDK v2 per-client step-up test');
    const url = new URL(`${running.url}/mcp`);
    const first = new TransportV2(url, { authProvider: provider });
    await expect(
      new ClientV2({ name: 'sdk-v2', version: '1.0.0' }).connect(first),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    await first.finishAuth(await approve(provider.authorizationUrl!, ['tools:read']));
    await running.grantConsentAgents();

    const transport = new TransportV2(url, { authProvider: provider });
    const client = new ClientV2({ name: 'sdk-v2', version: '1.0.0' });
    await client.connect(transport);
    provider.authorizationUrl = undefined;
    // HTTP 403 with WWW-Authenticate: the SDK steps up to the union of scopes, by itself.
    await expect(
      client.callTool({ name: WRITE_TOOL, arguments: WRITE_ARGS }),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const stepUp = provider.authorizationUrl!;
    expect(stepUp.searchParams.get('scope')).toBe('tools:read tools:write');
    await transport.finishAuth(await approve(stepUp, ['tools:read', 'tools:write']));
    await client.close();
    const again = new ClientV2({ name: 'sdk-v2', version: '1.0.0' });
    await again.connect(new TransportV2(url, { authProvider: provider }));
    const written = await again.callTool({ name: WRITE_TOOL, arguments: WRITE_ARGS });
    expect(written.isError).toBeFalsy();
    await again.close();
  });
});

/** `portcullis` on the gateway's own store. */
function cli(args: string[]) {
  return runPortcullisHere(args, {
    PORTCULLIS_DATA_DIR: running.gateway.dataDir,
    PORTCULLIS_PUBLIC_URL: running.url,
  });
}

describe("an operator's choice", () => {
  it("overrides the default at the client's next request, and is undone by default", async () => {
    const chatgpt = await registered('ChatGPT', CHATGPT_REDIRECT);
    const token = await tokenFor(chatgpt, 'tools:read');
    const shown = await cli(['oauth', 'client', chatgpt.clientId]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("ChatGPT's");
    expect((await call(token, WRITE_TOOL, WRITE_ARGS)).status).toBe(200);

    const set = await cli(['oauth', 'client', chatgpt.clientId, '--step-up', 'http']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('now steps up with HTTP 403');
    const refused = await call(token, WRITE_TOOL, WRITE_ARGS);
    expect(refused.status).toBe(403);
    expect(refused.challenge).toContain('error="insufficient_scope"');

    expect((await cli(['oauth', 'client', chatgpt.clientId, '--step-up', 'default'])).code).toBe(0);
    expect((await call(token, WRITE_TOOL, WRITE_ARGS)).status).toBe(200);

    // The admin API's verb is the same one.
    const admin = adminClient(running.url, running.gateway.adminToken!);
    const path = `/workspaces/default/oauth-clients/${chatgpt.clientId}`;
    expect((await admin('GET', path)).body).toMatchObject({ form: 'result', why: 'chatgpt' });
    const put = await admin('PUT', `${path}/step-up`, { stepUp: 'http' });
    expect(put.body).toMatchObject({ form: 'http', why: 'chosen' });
    expect((await call(token, WRITE_TOOL, WRITE_ARGS)).status).toBe(403);
  });

  it('is refused for a client no member of the workspace connected, and for a form that is none', async () => {
    const stranger = await registered('Stranger', SDK_REDIRECT);
    const unknown = await cli([
      'oauth',
      'client',
      stranger.clientId,
      '--step-up',
      'http',
      '--json',
    ]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('not_found');
    const chatgpt = await registered('ChatGPT', CHATGPT_REDIRECT);
    await tokenFor(chatgpt, 'tools:read');
    const bad = await cli([
      'oauth',
      'client',
      chatgpt.clientId,
      '--step-up',
      'sometimes',
      '--json',
    ]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('invalid_input');
  });
});

describe('the consent review', () => {
  it.each([
    ['ChatGPT', CHATGPT_REDIRECT, 'a tool result carrying the challenge (what ChatGPT reads)'],
    ['an SDK client', SDK_REDIRECT, 'an HTTP 403 with a WWW-Authenticate challenge'],
  ])('says how %s is told to step up', async (_name, redirectUri, words) => {
    const client = await registered('Some app', redirectUri);
    const page = await openConsentPage(
      authorizeUrl(running.url, client, { code_challenge: pkce().challenge }),
    );
    if (!('fields' in page)) throw new Error(`no consent page: ${page.status}`);
    expect(page.html).not.toContain('id="step-up"');
    const review = await postConsent(running.url, page, MEMBER, { fields: { decision: 'review' } });
    expect(review.status).toBe(200);
    const html = await review.text();
    expect(html).toContain('id="step-up"');
    expect(html).toContain(words);
  });
});

/** The member approves `scopes` on the consent page the SDK's authorize URL opens: the callback's query. */
async function approve(url: URL, scopes: readonly string[]): Promise<URLSearchParams> {
  const { location } = await consent(url, { ...MEMBER, scopes });
  return location.searchParams;
}
