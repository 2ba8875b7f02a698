/**
 * Which connection names exist is nobody's to probe: before authentication,
 * `/mcp/c/<name>` and its protected resource metadata answer a made-up name
 * exactly as they answer a real one (status, headers, body, the name aside),
 * and the metadata still names the resource that was asked for (RFC 9728
 * §3.3). After it, an agent sees only its own workspace: a name that is
 * another workspace's connection looks to it like one that is nobody's.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import { createWorkspace } from '../../../../../runtime/core/operator/workspaces.ts';
import { initializeRequest } from '../../../../support/mcp/raw-http.ts';
import { type OAuthGateway, startOAuthGateway } from '../../../../support/oauth/oauth-gateway.ts';
import { authorizeUrl, pkce, registerClient } from '../../../../support/oauth/raw-flow.ts';

/** A connection of the default workspace, and a name nobody has, of the same length. */
const REAL = 'unikraft';
const MADE_UP = 'unikrafz';

let running: OAuthGateway;

beforeAll(async () => {
  running = await startOAuthGateway();
});
afterAll(() => running?.close());

/** A reply as an outsider sees it, with the name it asked about written `<name>`. */
async function seen(name: string, path: string, init: RequestInit = {}) {
  const reply = await fetch(`${running.url}${path}`, init);
  const blank = (text: string) => text.replaceAll(name, '<name>');
  const headers = [...reply.headers.entries()]
    .filter(([header]) => header !== 'date')
    .map(([header, value]) => [header, blank(value)]);
  return { status: reply.status, headers, body: blank(await reply.text()) };
}

const INITIALIZE = JSON.stringify(initializeRequest('2025-11-25'));

describe('protected resource metadata of /mcp/c/<name>', () => {
  it('answers a made-up name as it answers a real one', async () => {
    const real = await seen(REAL, `/.well-known/oauth-protected-resource/mcp/c/${REAL}`);
    const madeUp = await seen(MADE_UP, `/.well-known/oauth-protected-resource/mcp/c/${MADE_UP}`);
    expect(real.status).toBe(200);
    expect(madeUp).toEqual(real);
  });

  it('names the resource asked for', async () => {
    for (const name of [REAL, MADE_UP]) {
      const reply = await fetch(
        `${running.url}/.well-known/oauth-protected-resource/mcp/c/${name}`,
      );
      expect(((await reply.json()) as { resource: string }).resource).toBe(
        `${running.url}/mcp/c/${name}`,
      );
    }
  });

  it('is not found for a path no connection could have', async () => {
    const reply = await fetch(
      `${running.url}/.well-known/oauth-protected-resource/mcp/c/Not_A_Name`,
    );
    expect(reply.status).toBe(404);
  });
});

describe.each<[string, Record<string, string>]>([
  ['no credential', {}],
  ['a credential that is none', { Authorization: 'Bearer pk_not_a_key_at_all' }],
])('/mcp/c/<name> with %s', (_, credential) => {
  it.each<[string, RequestInit]>([
    [
      'POST initialize',
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: INITIALIZE,
      },
    ],
    ['GET', { method: 'GET', headers: { accept: 'text/event-stream' } }],
    ['DELETE', { method: 'DELETE' }],
  ])('answers %s for a made-up name as for a real one', async (_method, init) => {
    const request = { ...init, headers: { ...(init.headers as object), ...credential } };
    const real = await seen(REAL, `/mcp/c/${REAL}`, request);
    const madeUp = await seen(MADE_UP, `/mcp/c/${MADE_UP}`, request);
    expect(real.status).toBe(401);
    expect(madeUp).toEqual(real);
    const challenge = real.headers.find(([header]) => header === 'www-authenticate')?.[1];
    expect(challenge).toContain('/.well-known/oauth-protected-resource/mcp/c/<name>');
  });
});

describe('the authorization endpoint', () => {
  it('takes a resource for a made-up connection name as for a real one', async () => {
    const client = await registerClient(running.url);
    const statuses: number[] = [];
    for (const name of [REAL, MADE_UP]) {
      const url = authorizeUrl(running.url, client, {
        code_challenge: pkce().challenge,
        resource: `${running.url}/mcp/c/${name}`,
      });
      const reply = await fetch(url, { redirect: 'manual' });
      statuses.push(reply.status);
      await reply.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200]);
  });
});

describe('an agent of another workspace', () => {
  it('sees a name that is another workspace’s connection as one that is nobody’s', async () => {
    const ctx = running.gateway.running.gateway.operator('test');
    await createWorkspace(ctx, { name: 'elsewhere' });
    const { key } = await createAgent(ctx, { workspace: 'elsewhere', name: 'outsider' });
    const views = [];
    for (const name of [REAL, MADE_UP]) {
      const client = new Client({ name: 'outsider', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${running.url}/mcp/c/${name}`), {
          requestInit: { headers: { Authorization: `Bearer ${key}` } },
        }),
      );
      try {
        views.push({
          capabilities: client.getServerCapabilities(),
          tools: (await client.listTools()).tools,
        });
      } finally {
        await client.close();
      }
    }
    expect(views[0]?.tools).toEqual([]);
    expect(views[1]).toEqual(views[0]);
  });
});
