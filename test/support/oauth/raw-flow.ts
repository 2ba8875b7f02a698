/** The authorization server's endpoints by hand, for tests that send what a real client never would. */
import { createHash, randomBytes } from 'node:crypto';
import { consent } from './consent-bot.ts';
import { MEMBER } from './oauth-gateway.ts';

export interface RegisteredTestClient {
  clientId: string;
  redirectUri: string;
}

export async function registerClient(
  url: string,
  redirectUri = `http://127.0.0.1:${10_000 + Math.floor(Math.random() * 50_000)}/callback`,
): Promise<RegisteredTestClient> {
  const reply = await fetch(`${url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'raw test client', redirect_uris: [redirectUri] }),
  });
  if (reply.status !== 201) throw new Error(`registration answered ${reply.status}`);
  const body = (await reply.json()) as { client_id: string };
  return { clientId: body.client_id, redirectUri };
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizeUrl(
  url: string,
  client: RegisteredTestClient,
  params: Record<string, string | undefined>,
): URL {
  const target = new URL(`${url}/oauth/authorize`);
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    state: 'state-1',
    code_challenge_method: 'S256',
    ...params,
  };
  for (const [name, value] of Object.entries(all))
    if (value !== undefined) target.searchParams.set(name, value);
  return target;
}

/** A code for the client, approved by the test member. */
export async function codeFor(
  url: string,
  client: RegisteredTestClient,
  params: Record<string, string | undefined> = {},
): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkce();
  const { location } = await consent(
    authorizeUrl(url, client, { code_challenge: challenge, ...params }),
    MEMBER,
  );
  const code = location.searchParams.get('code');
  if (!code) throw new Error(`no code: ${location.search}`);
  return { code, verifier };
}

export interface TokenReply {
  status: number;
  body: Record<string, string | number | undefined>;
  headers: Headers;
}

export async function tokenRequest(
  url: string,
  form: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<TokenReply> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) if (value !== undefined) body.set(name, value);
  const reply = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });
  return {
    status: reply.status,
    body: (await reply.json()) as TokenReply['body'],
    headers: reply.headers,
  };
}

export async function exchange(
  url: string,
  client: RegisteredTestClient,
  code: { code: string; verifier: string },
  overrides: Record<string, string | undefined> = {},
): Promise<TokenReply> {
  return tokenRequest(url, {
    grant_type: 'authorization_code',
    client_id: client.clientId,
    code: code.code,
    redirect_uri: client.redirectUri,
    code_verifier: code.verifier,
    ...overrides,
  });
}

/** The status `/mcp` answers a 2025-11-25 `initialize` with this bearer token (401 refused, 200 in). */
export async function mcpStatus(url: string, token: string): Promise<number> {
  const reply = await postInitialize(url, token);
  await reply.text();
  return reply.status;
}

/** A 2025-11-25 `initialize` POSTed to `<url>/mcp` with this bearer token: the raw reply. */
export function postInitialize(url: string, token: string): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      },
    }),
  });
}
