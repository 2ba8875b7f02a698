/**
 * A personal sign-in on the 2026-07-28 stateless wire, with the SDK v2
 * client (@modelcontextprotocol/client 2.4.0) pinned to it: a client that
 * declares URL-mode elicitation in its per-request `_meta` capabilities gets
 * the link as an `input_required` result whose `elicitation/create` request
 * has the revision's shape (mode `url`, `message`, `url`; no
 * `elicitationId`, which the revision removed), and its retry, after the
 * person signed in at oidc-provider, runs the call. A client that declares
 * elicitation without the URL mode gets the `isError` result with the link.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { SignInBrowser, signInThrough } from '../../../../support/remote/sign-in-browser.ts';
import { connectSignedIn, useSignInPeers } from '../../../../support/remote/signed-in.ts';

const peers = useSignInPeers({ tenant: 'modern' });

/** Every JSON-RPC exchange the client made, as it went over the wire. */
interface Exchange {
  request: { method?: string; params?: Record<string, unknown> };
  reply: { result?: Record<string, unknown> };
}

async function modernClient(
  key: string,
  capabilities: Record<string, unknown>,
  seen: Exchange[],
): Promise<Client> {
  const client = new Client(
    { name: 'modern-elicits', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const recording: typeof fetch = async (input, init) => {
    const reply = await fetch(input, init);
    const body = typeof init?.body === 'string' ? init.body : undefined;
    if (body === undefined || !reply.headers.get('content-type')?.includes('json')) return reply;
    const text = await reply.clone().text();
    seen.push({ request: JSON.parse(body), reply: text ? JSON.parse(text) : {} });
    return reply;
  };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${peers.gateway.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      fetch: recording,
    }),
  );
  return client;
}

describe('a personal sign-in on the 2026-07-28 wire', () => {
  it('reaches a client that declared URL elicitation as an input request, and its retry runs the call', async () => {
    const { key } = await connectSignedIn(peers.ctx, peers.upstream, 'modern', { personal: true });
    const seen: Exchange[] = [];
    const client = await modernClient(key, { elicitation: { url: {} } }, seen);
    expect(client.getProtocolEra()).toBe('modern');
    const asked: Array<Record<string, unknown>> = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as Record<string, unknown>;
      asked.push(params);
      const page = await signInThrough(new SignInBrowser(), String(params.url), 'erin');
      expect(page.html).toContain('for agent modern-agent');
      return { action: 'accept' };
    });
    const reply = await client.callTool({
      name: 'modern__get_weather',
      arguments: { city: 'Oslo' },
    });
    await client.close();

    expect(asked).toEqual([
      {
        mode: 'url',
        message: expect.stringContaining('sign-in is needed'),
        url: expect.stringContaining('/connect/oauth/sign-in?state='),
      },
    ]);
    expect(reply.isError).toBeFalsy();
    expect(reply.structuredContent).toEqual({ city: 'Oslo', sky: 'sunny' });

    // On the wire: the call declared url mode in its own _meta, the first answer
    // was input_required with the revision's request shape, the retry carried the answer.
    const calls = seen.filter((e) => e.request.method === 'tools/call');
    expect(calls).toHaveLength(2);
    const [first, retry] = calls as [Exchange, Exchange];
    expect(first.request.params?._meta).toMatchObject({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } },
    });
    expect(first.reply.result?.resultType).toBe('input_required');
    const requests = first.reply.result?.inputRequests as Record<string, Record<string, unknown>>;
    const [request] = Object.values(requests);
    expect(request?.method).toBe('elicitation/create');
    expect(Object.keys(request?.params as object).sort()).toEqual(['message', 'mode', 'url']);
    expect(retry.request.params?.inputResponses).toEqual({
      [Object.keys(requests)[0]!]: { action: 'accept' },
    });
    expect(retry.reply.result?.resultType).toBe('complete');
  });

  it('answers a client without the URL mode with the isError result carrying the link', async () => {
    const { key } = await connectSignedIn(peers.ctx, peers.upstream, 'formonly', {
      personal: true,
    });
    const seen: Exchange[] = [];
    const client = await modernClient(key, { elicitation: { form: {} } }, seen);
    let asked = 0;
    client.setRequestHandler('elicitation/create', async () => {
      asked++;
      return { action: 'cancel' };
    });
    const reply = (await client.callTool({
      name: 'formonly__get_weather',
      arguments: { city: 'Oslo' },
    })) as {
      isError?: boolean;
      content: Array<{ type: string; text?: string }>;
      structuredContent?: { error?: { code?: string; detail?: Record<string, unknown> } };
    };
    await client.close();
    expect(asked).toBe(0);
    expect(reply.isError).toBe(true);
    const error = reply.structuredContent?.error;
    expect(error?.code).toBe('oauth_sign_in_required');
    const link = String(error?.detail?.signInUrl);
    expect(link).toContain('/connect/oauth/sign-in?state=');
    expect(reply.content[0]?.text).toContain(link);
    expect(seen.filter((e) => e.request.method === 'tools/call')).toHaveLength(1);
  });
});
